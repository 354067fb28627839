package state

import (
	"context"
	"fmt"
)

// Ready reports whether the state can be used now: it makes one round
// trip to the database on a connection of the pool (a new one when the
// pool's are broken) and returns nil when it answered before ctx ended.
// It is cheap enough for a readiness probe (flowctl serve's /readyz);
// give ctx a deadline, since a database that does not answer (stopped,
// partitioned) makes it wait until ctx ends.
func (s *Store) Ready(ctx context.Context) error {
	if err := s.db.PingContext(ctx); err != nil {
		return fmt.Errorf("the state database %s does not answer: %w", s.path, err)
	}
	return nil
}
