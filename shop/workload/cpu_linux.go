package workload

import (
	"syscall"
	"time"
	"unsafe"
)

// clockThreadCPUTime is Linux's CLOCK_THREAD_CPUTIME_ID.
const clockThreadCPUTime = 3

// ThreadCPU is the CPU time the calling OS thread has used. The caller must
// hold its thread (runtime.LockOSThread), or the goroutine may move between
// two readings. ok is false where the clock is unavailable.
func ThreadCPU() (d time.Duration, ok bool) {
	var ts syscall.Timespec
	if _, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}
