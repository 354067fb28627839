package state

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestFullDiskStartsNothing: while the state's disk is full, the writer
// keeps the step results it could not write and WaitWritable starts
// nothing; once there is room again they are recorded, and steps start.
// The disk is a small tmpfs (mounting it needs root, as CI runs).
func TestFullDiskStartsNothing(t *testing.T) {
	if os.Geteuid() != 0 {
		if os.Getenv("CI") != "" {
			t.Fatal("mounting a small file system for the state needs root")
		}
		t.Skip("mounting a small file system for the state needs root")
	}
	disk := filepath.Join(t.TempDir(), "disk")
	if err := os.Mkdir(disk, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", disk, "tmpfs", 0, "size=8m"); err != nil {
		t.Fatalf("mount tmpfs: %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(disk, syscall.MNT_DETACH) })
	s := openSQLiteIn(t, filepath.Join(disk, ".flowctl"))
	r := createRun(t, s, "", "f", time.Time{})
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}

	// Fill the disk.
	filler, err := os.Create(filepath.Join(disk, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(filler, zeros{}); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("filling the disk: %v", err)
	}
	filler.Close()

	big, _ := json.Marshal(map[string]string{"text": strings.Repeat("x", 256<<10)})
	s.RecordStep(&StepResult{RunID: r.ID, Step: "first", Status: "ok", Outputs: big})
	for deadline := time.Now().Add(time.Minute); s.w.refused.Load() == nil; {
		if time.Now().After(deadline) {
			t.Fatal("the writer did not find the disk full")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := s.w.refused.Load().err; !refusesWrites(err) {
		t.Fatalf("the refusal: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	err = s.WaitWritable(ctx, r.ID)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("WaitWritable with the disk full = %v, want it to wait (context.DeadlineExceeded)", err)
	}

	// Room again: what waited is recorded, and steps may start.
	if err := os.Remove(filepath.Join(disk, "filler")); err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(); err != nil {
		t.Fatalf("Flush once there is room: %v", err)
	}
	if err := s.WaitWritable(context.Background(), r.ID); err != nil {
		t.Fatalf("WaitWritable once there is room: %v", err)
	}
	steps, err := s.Steps(r.ID)
	if err != nil || len(steps) != 1 || steps[0].Step != "first" {
		t.Fatalf("the steps recorded: %v, %v", steps, err)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}
