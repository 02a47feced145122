//go:build !linux

package workload

import "time"

// ThreadCPU is unavailable here: ok is always false.
func ThreadCPU() (d time.Duration, ok bool) { return 0, false }
