package state

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// A Proposal is a change to a flow that flowctl think --edit or flowctl
// explain staged: the files to write, with the content each had when the change was made, for
// a person to accept or reject.
type Proposal struct {
	ID       string
	Flow     string
	FlowFile string // as given to think --edit
	Intent   string
	Created  time.Time
	// Status is ProposalStaged until accepted or rejected, when Decided
	// is set.
	Status  string
	Decided time.Time
	// Summary is the change, step by step, as JSON.
	Summary json.RawMessage
	Files   []ProposalFile
	Diff    string // unified, of every file
	// RunID, Diagnosis and Evidence are those of a fix flowctl explain
	// proposes: the run it fixes, what went wrong, and the evidence that
	// the fix works (JSON: the steps that failed and succeed with it);
	// empty for a change of think --edit.
	RunID     string
	Diagnosis string
	Evidence  json.RawMessage
	// Weakenings are the safeguards of the flow the proposal removes or
	// loosens (thinker.Weakenings): accepting it then takes roles author
	// and approve under flowctl serve, and a confirmation of flowctl
	// proposals accept. Nil when they were not checked (a proposal staged
	// before flowctl checked them); empty when there are none.
	Weakenings []Weakening
}

// A Weakening is a safeguard of a flow that a proposal removes or loosens.
type Weakening struct {
	// Kind is what kind of safeguard: approval, when, timeout,
	// http_hosts, secret, or unchecked (the proposed flow could not be
	// compared).
	Kind string `json:"kind"`
	// Flow is the flow file, relative to the proposals' base; Subject
	// what it is about in the flow (`step "review"`, `secret "key"`,
	// `flow "pay"`).
	Flow    string `json:"flow"`
	Subject string `json:"subject"`
	// Message says what the proposal does to it, a sentence.
	Message string `json:"message"`
}

// ProposalFile is a file a proposal writes: its path, the SHA-256 (hex)
// of the content it had when the change was made ("" when it did not
// exist) and its new content.
type ProposalFile struct {
	Path       string `json:"path"`
	BaseSHA256 string `json:"base_sha256"`
	Content    string `json:"content"`
}

// The statuses of a proposal.
const (
	ProposalStaged   = "staged"
	ProposalAccepted = "accepted"
	ProposalRejected = "rejected"
)

// ErrProposalNotFound is wrapped by the error of an ID that names no
// proposal; ErrNotStaged by that of deciding one that is decided.
var (
	ErrProposalNotFound = errors.New("no such proposal")
	ErrNotStaged        = errors.New("the proposal is not staged")
)

// CreateProposal records a staged proposal, giving it an ID when it has
// none.
func (s *Store) CreateProposal(p *Proposal) error {
	if p.ID == "" {
		p.ID = NewRunID()
	}
	if p.Created.IsZero() {
		p.Created = time.Now()
	}
	p.Status = ProposalStaged
	files, err := json.Marshal(p.Files)
	if err != nil {
		return err
	}
	var weakenings json.RawMessage
	if p.Weakenings != nil {
		if weakenings, err = json.Marshal(p.Weakenings); err != nil {
			return err
		}
	}
	_, err = s.w.do(func(ctx context.Context, st *writerStmts) error {
		_, err := st.insertProposal.ExecContext(ctx, p.ID, p.Flow, p.FlowFile, p.Intent, p.Created.UnixNano(),
			p.Status, text(p.Summary), string(files), p.Diff, p.RunID, p.Diagnosis, text(p.Evidence), text(weakenings))
		return err
	})
	if err != nil {
		return fmt.Errorf("recording the proposal: %w", err)
	}
	return nil
}

// DecideProposal marks a staged proposal accepted or rejected.
func (s *Store) DecideProposal(id, status string) error {
	_, err := s.w.do(func(ctx context.Context, st *writerStmts) error {
		res, err := st.decideProposal.ExecContext(ctx, status, time.Now().UnixNano(), id)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return ErrNotStaged
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("deciding proposal %s: %w", id, err)
	}
	return nil
}

// Proposal returns the proposal whose ID is id, or the only one whose ID
// starts with it (MinPrefix characters at least).
func (s *Store) Proposal(id string) (*Proposal, error) {
	ps, err := byIDOrPrefix(s.proposals, id, `WHERE id = ?`, id)
	if len(id) >= MinPrefix {
		id = strings.ToLower(id) // as it was looked for
	}
	return only(ps, err, id, ErrProposalNotFound, "no proposal ID is or starts with %q", "proposals")
}

// Proposals returns every proposal, newest first.
func (s *Store) Proposals() ([]*Proposal, error) { return s.proposals(``) }

func (s *Store) proposals(where string, args ...any) ([]*Proposal, error) {
	rows, err := s.db.QueryContext(s.db.bg(), `SELECT id, flow, flow_file, intent, created_at, status,
		decided_at, summary, files, diff, run_id, diagnosis, evidence, weakenings FROM proposals `+where+` ORDER BY created_at DESC, id DESC`, args...)
	if err != nil {
		return nil, fmt.Errorf("reading proposals: %w", err)
	}
	defer rows.Close()
	var out []*Proposal
	for rows.Next() {
		p := new(Proposal)
		var created int64
		var decided sql.NullInt64
		var summary, evidence, weakenings sql.NullString
		var files string
		if err := rows.Scan(&p.ID, &p.Flow, &p.FlowFile, &p.Intent, &created, &p.Status, &decided, &summary, &files, &p.Diff,
			&p.RunID, &p.Diagnosis, &evidence, &weakenings); err != nil {
			return nil, fmt.Errorf("reading proposals: %w", err)
		}
		p.Created, p.Decided = time.Unix(0, created), fromNanos(decided)
		if summary.Valid {
			p.Summary = json.RawMessage(summary.String)
		}
		if evidence.Valid {
			p.Evidence = json.RawMessage(evidence.String)
		}
		if err := json.Unmarshal([]byte(files), &p.Files); err != nil {
			return nil, fmt.Errorf("reading the files of proposal %s: %w", p.ID, err)
		}
		if weakenings.Valid {
			p.Weakenings = []Weakening{}
			if err := json.Unmarshal([]byte(weakenings.String), &p.Weakenings); err != nil {
				return nil, fmt.Errorf("reading what proposal %s weakens: %w", p.ID, err)
			}
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading proposals: %w", err)
	}
	return out, nil
}

const insertProposalSQL = `
INSERT INTO proposals (id, flow, flow_file, intent, created_at, status, summary, files, diff, run_id, diagnosis, evidence, weakenings)
VALUES (?, ?, ?, ?, ?, ?, CAST(? AS TEXT), ?, ?, ?, ?, CAST(? AS TEXT), CAST(? AS TEXT))`

const decideProposalSQL = `
UPDATE proposals SET status = ?, decided_at = ? WHERE id = ? AND status = 'staged'`

// Paths are the paths of the files the proposal writes, in its order.
func (p *Proposal) Paths() []string {
	var out []string
	for _, f := range p.Files {
		out = append(out, f.Path)
	}
	return out
}
