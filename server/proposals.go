package server

import (
	"errors"
	"fmt"
	"net/http"
	"path/filepath"

	"github.com/flowctl/flowctl/runtime/state"
	"github.com/flowctl/flowctl/server/api"
	"github.com/flowctl/flowctl/thinker"
)

// /v1/proposals are the changes staged in the server's state, by flowctl
// think --edit or explain (the CLI's or POST /v1/runs/{id}/explain), as
// flowctl proposals lists, shows, accepts and rejects them. Accepting
// writes the proposal's files, refused (409, nothing written) when one
// changed since the proposal was made.

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
	if p := s.proposal(w, r); p != nil {
		writeJSON(w, http.StatusOK, api.NewProposal(p, true))
	}
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

// decided answers a decision on a proposal: the proposal as it is now, or
// why it was refused.
func (s *Server) decided(w http.ResponseWriter, r *http.Request, p *state.Proposal, err error) {
	var drift *thinker.DriftError
	switch {
	case errors.As(err, &drift):
		writeError(w, http.StatusConflict, "proposal_out_of_date", drift.Error()+". Make the change again, or reject the proposal.", nil, nil)
	case errors.Is(err, state.ErrNotStaged):
		writeError(w, http.StatusConflict, "not_staged", fmt.Sprintf("Proposal %s was %s already.", p.ID, p.Status), nil, nil)
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
