//go:build unix

package judge

import "syscall"

// processCPU is the user and system CPU time of the process so far, in
// nanoseconds (0 if getrusage fails).
func processCPU() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
