//go:build linux && cgo

package isolate

/*
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FLOWCTL_WORKER_ARG "__flowctl-sandbox-worker"

// What flowctl_worker_unshare did: -1 when it was not asked to, 0 when the
// worker is in its namespaces, else the errno of the step that failed.
static int flowctl_ns_errno = -1;
static const char *flowctl_ns_step = "";

static int flowctl_ns_write(const char *path, const char *text) {
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		return errno;
	}
	size_t n = strlen(text);
	ssize_t w = write(fd, text, n);
	int err = w == (ssize_t)n ? 0 : (w < 0 ? errno : EIO);
	close(fd);
	return err;
}

// flowctl_ns_is_worker: 1 when the process's first argument is
// WorkerArg, 0 when it is not, -errno when /proc/self/cmdline cannot be
// read (constructors get no arguments from every C library). The variable
// alone cannot move another flowctl process off the network.
static int flowctl_ns_is_worker(void) {
	// The executable's path (at most PATH_MAX) and WorkerArg.
	char buf[4096 + 64];
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		return -errno;
	}
	ssize_t n = read(fd, buf, sizeof buf - 1);
	int err = errno;
	close(fd);
	if (n < 0) {
		return -err;
	}
	buf[n] = 0;
	size_t first = strnlen(buf, (size_t)n);
	return (ssize_t)first < n && strcmp(buf + first + 1, FLOWCTL_WORKER_ARG) == 0;
}

static void flowctl_ns_fail(const char *step, int err) {
	flowctl_ns_step = step;
	flowctl_ns_errno = err;
}

// flowctl_worker_unshare runs before the Go runtime starts, while the
// process has one thread: unshare(CLONE_NEWUSER) refuses a process with
// more, and a Go program has several from its start. A worker the pool
// starts with FLOWCTL_WORKER_UNSHARE set, and WorkerArg as its first
// argument, moves into a new user namespace, mapping only its own user and
// group (setgroups denied, as the kernel requires of an unprivileged
// mapping), and a new network namespace. The value "break" adds a flag the
// kernel refuses (tests).
__attribute__((constructor)) static void flowctl_worker_unshare(void) {
	const char *v = getenv("FLOWCTL_WORKER_UNSHARE");
	if (v == NULL) {
		return;
	}
	int flags = CLONE_NEWUSER | CLONE_NEWNET;
	if (strcmp(v, "break") == 0) {
		flags |= 1;
	}
	unsetenv("FLOWCTL_WORKER_UNSHARE");
	int worker = flowctl_ns_is_worker();
	if (worker < 0) {
		flowctl_ns_fail("reading /proc/self/cmdline", -worker);
		return;
	}
	if (worker == 0) {
		return;
	}
	unsigned uid = (unsigned)geteuid(), gid = (unsigned)getegid();
	if (unshare(flags) != 0) {
		flowctl_ns_fail("unshare", errno);
		return;
	}
	char m[64];
	int err = flowctl_ns_write("/proc/self/setgroups", "deny");
	if (err != 0) {
		flowctl_ns_fail("setgroups", err);
		return;
	}
	snprintf(m, sizeof m, "%u %u 1", uid, uid);
	if ((err = flowctl_ns_write("/proc/self/uid_map", m)) != 0) {
		flowctl_ns_fail("uid_map", err);
		return;
	}
	snprintf(m, sizeof m, "%u %u 1", gid, gid);
	if ((err = flowctl_ns_write("/proc/self/gid_map", m)) != 0) {
		flowctl_ns_fail("gid_map", err);
		return;
	}
	flowctl_ns_errno = 0;
}

static int flowctl_ns_result(void) { return flowctl_ns_errno; }
static const char *flowctl_ns_failed_step(void) { return flowctl_ns_step; }
*/
import "C"

import "syscall"

// selfUnshare: a worker makes its own namespaces as its process starts,
// before the Go runtime (the constructor above), when the pool sets
// unshareEnv in its environment. The pool then starts it without a fork of
// its own memory: Go starts a process with vfork unless the kernel is to
// make a user namespace for it, and then copies the parent's page tables
// and marks all its memory copy-on-write, which costs in proportion to
// the parent's size and makes each page it writes afterwards fault. A
// for_each of 20,000 js calls spent a fifth of its CPU time so.
const selfUnshare = true

// workerArgC is WorkerArg as the constructor knows it (a test checks they
// are one).
const workerArgC = C.FLOWCTL_WORKER_ARG

// unshareMissing is the confinement layer the worker lacks because the
// constructor could not make its namespaces, "" when it made them or was
// not asked to.
func unshareMissing() string {
	errno := int(C.flowctl_ns_result())
	if errno <= 0 {
		return ""
	}
	return namespacesLayer + " (" + C.GoString(C.flowctl_ns_failed_step()) + ": " + syscall.Errno(errno).Error() + ")"
}
