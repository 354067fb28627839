package server

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/flowctl/flowctl/runtime/state"
	"github.com/flowctl/flowctl/server/api"
	"github.com/flowctl/flowctl/thinker"
)

// /v1/proposals are the changes staged in the server's state, by flowctl
// think --edit or explain (the CLI's or POST /v1/runs/{id}/explain), as
// flowctl proposals lists, shows, accepts and rejects them. Accepting
// writes the proposal's files, refused (409, nothing written) when one
// changed since the proposal was made. Deciding takes role author (run may
// ask for a proposal, by explain, but not write it); accepting a proposal
// that weakens the flow (thinker.ProposalWeakenings, checked again as it
// is accepted) takes approve as well.

// proposalList is the body of GET /v1/proposals: the newest first,
// without their files.
type proposalList struct {
	Proposals []api.Proposal `json:"proposals"`
}

func (s *Server) getProposals(w http.ResponseWriter, r *http.Request) {
	ps, err := s.store.Proposals()
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	out := proposalList{Proposals: []api.Proposal{}}
	for _, p := range ps {
		out.Proposals = append(out.Proposals, api.NewProposal(p, false))
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) getProposal(w http.ResponseWriter, r *http.Request) {
	p := s.proposal(w, r)
	if p == nil {
		return
	}
	if p.Weakenings == nil && p.Status == state.ProposalStaged {
		// Staged before they were recorded: checked now.
		ws, err := thinker.ProposalWeakenings(s.store, p, s.opts.Registries)
		if err != nil {
			s.internalError(w, r, err)
			return
		}
		p.Weakenings = ws
	}
	writeJSON(w, http.StatusOK, api.NewProposal(p, true))
}

func (s *Server) postAccept(w http.ResponseWriter, r *http.Request) {
	if !decodeBody(w, r, &struct{}{}) {
		return
	}
	p := s.proposal(w, r)
	if p == nil {
		return
	}
	base := thinker.ProposalBase(s.store)
	for _, f := range p.Files {
		if !s.underDir(filepath.Join(base, f.Path)) {
			writeError(w, http.StatusConflict, "not_served", fmt.Sprintf("Proposal %s writes %s, which is not under this server's directory; accept it with flowctl proposals accept.", p.ID, f.Path), nil, nil)
			return
		}
	}
	if t := tokenOf(r); t != nil && !t.Allows(RoleApprove) && p.Status == state.ProposalStaged {
		ws, err := s.weakenings(p)
		if err != nil {
			s.internalError(w, r, err)
			return
		}
		if len(ws) > 0 {
			var what []string
			for _, x := range ws {
				what = append(what, x.Flow+": "+x.Message)
			}
			writeError(w, http.StatusForbidden, "forbidden", fmt.Sprintf("Proposal %s weakens the flow, so accepting it takes roles author and approve; token %s has roles %s. %s",
				p.ID, t.Name, roleList(t), strings.Join(what, " ")), nil, nil)
			return
		}
	}
	err := thinker.AcceptProposal(s.store, p, s.opts.Registries)
	s.flows.invalidate()
	s.decided(w, r, p, err)
}

func (s *Server) postReject(w http.ResponseWriter, r *http.Request) {
	if !decodeBody(w, r, &struct{}{}) {
		return
	}
	if p := s.proposal(w, r); p != nil {
		s.decided(w, r, p, thinker.DecideProposal(s.store, p, state.ProposalRejected))
	}
}

// weakenings are what a proposal weakens: as recorded when it was staged
// and as it is checked now (the files are those it was made from, or
// accepting it refuses), with the server's registries.
func (s *Server) weakenings(p *state.Proposal) ([]state.Weakening, error) {
	ws, err := thinker.ProposalWeakenings(s.store, p, s.opts.Registries)
	if err != nil {
		return nil, err
	}
	return append(ws, p.Weakenings...), nil
}

// decided answers a decision on a proposal: the proposal as it is now, or
// why it was refused.
func (s *Server) decided(w http.ResponseWriter, r *http.Request, p *state.Proposal, err error) {
	var drift *thinker.DriftError
	switch {
	case errors.As(err, &drift):
		writeError(w, http.StatusConflict, "proposal_out_of_date", drift.Error()+". Make the change again, or reject the proposal.", nil, nil)
	case errors.Is(err, state.ErrNotStaged):
		writeError(w, http.StatusConflict, "not_staged", fmt.Sprintf("Proposal %s was %s already.", p.ID, p.Status), nil, nil)
	case errors.Is(err, syscall.EROFS) || errors.Is(err, fs.ErrPermission):
		// A deployed server's directory is read-only (deploy/flowctl.service):
		// a proposal is accepted in a checkout, committed and deployed.
		s.log.Warn("proposal not written", "proposal", p.ID, "error", err.Error())
		writeError(w, http.StatusConflict, "read_only", fmt.Sprintf("This server cannot write the flows it serves (%s). Accept proposal %s in a checkout of the repository (flowctl proposals accept), commit it and deploy it.", errText(err), p.ID), nil, nil)
	case err != nil:
		s.internalError(w, r, err)
	default:
		s.log.Info("proposal "+p.Status, "proposal", p.ID, "flow", p.Flow)
		writeJSON(w, http.StatusOK, api.NewProposal(p, true))
	}
}

// proposal is the proposal the path names; nil, answered, when none.
func (s *Server) proposal(w http.ResponseWriter, r *http.Request) *state.Proposal {
	id := r.PathValue("id")
	p, err := s.store.Proposal(id)
	switch {
	case errors.Is(err, state.ErrProposalNotFound):
		writeError(w, http.StatusNotFound, "not_found", fmt.Sprintf("There is no proposal %q.", id), nil, nil)
		return nil
	case err != nil:
		s.internalError(w, r, err)
		return nil
	}
	return p
}

// errText is the system's words for err: "read-only file system",
// "permission denied".
func errText(err error) string {
	if errors.Is(err, syscall.EROFS) {
		return syscall.EROFS.Error()
	}
	return fs.ErrPermission.Error()
}
