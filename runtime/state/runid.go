package state

import (
	"crypto/rand"
	"encoding/binary"
	"sync"
	"time"
)

// A run ID is 16 characters of lower-case Crockford base32 (digits and
// letters but i, l, o and u, so it reads aloud and types without
// ambiguity): 9 characters of the time in milliseconds since 1970 (45 bits,
// enough until the year 3084), then 7 random characters (35 bits). IDs
// therefore sort as their times do, as strings, and two processes starting
// a run in the same millisecond collide with a probability of about 2^-35.
// Within a process, IDs of the same millisecond count up from a random
// start, so they stay unique and sorted.
const (
	runIDLen   = 16
	timeChars  = 9
	randChars  = runIDLen - timeChars
	randBits   = 5 * randChars
	crockford  = "0123456789abcdefghjkmnpqrstvwxyz"
	maxRandom  = 1<<randBits - 1
	maxTimeVal = 1<<(5*timeChars) - 1
)

var lastID struct {
	sync.Mutex
	ms, rand uint64
}

// NewRunID returns a new run ID: 16 characters, sortable by time, unique
// across processes (see the comment on runIDLen).
func NewRunID() string {
	ms := uint64(time.Now().UnixMilli()) & maxTimeVal

	lastID.Lock()
	var r uint64
	switch {
	case ms > lastID.ms:
		r = random() >> 1 // leave room to count up
	case lastID.rand < maxRandom:
		ms, r = lastID.ms, lastID.rand+1
	default: // counted through the whole range: borrow the next millisecond
		ms, r = lastID.ms+1, random()>>1
	}
	lastID.ms, lastID.rand = ms, r
	lastID.Unlock()

	var b [runIDLen]byte
	for i := timeChars - 1; i >= 0; i-- {
		b[i] = crockford[ms&31]
		ms >>= 5
	}
	for i := runIDLen - 1; i >= timeChars; i-- {
		b[i] = crockford[r&31]
		r >>= 5
	}
	return string(b[:])
}

// random returns randBits random bits.
func random() uint64 {
	var b [8]byte
	rand.Read(b[:]) // never fails (crypto/rand)
	return binary.LittleEndian.Uint64(b[:]) & maxRandom
}
