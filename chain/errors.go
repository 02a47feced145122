package chain

import (
	"errors"
	"fmt"
	"strings"
)

// Weight-setting rejections. The same sentinel is returned whether the
// client's preflight caught the problem or the chain refused it, so callers
// use errors.Is either way; the wrapping says which (RejectedError.OnChain).
var (
	ErrRateLimited         = errors.New("weights rate limit: too few blocks since last update")
	ErrVersionKeyTooLow    = errors.New("weights version key below the subnet's")
	ErrNoValidatorPermit   = errors.New("no validator permit")
	ErrTooFewWeights       = errors.New("too few non-zero weights")
	ErrDuplicateUids       = errors.New("duplicate uids")
	ErrUnknownUid          = errors.New("unknown uid")
	ErrLengthMismatch      = errors.New("uids and values differ in length")
	ErrCommitRevealEnabled = errors.New("commit-reveal is enabled: plain setWeights is refused")
	ErrCommitRevealOff     = errors.New("commit-reveal is disabled: commit/reveal is refused")
	ErrNotRegistered       = errors.New("hotkey not registered on this subnet")
	ErrSubnetNotFound      = errors.New("subnet does not exist")
	ErrNoCommit            = errors.New("no weights commit found")
	ErrCommitMismatch      = errors.New("reveal does not match any commit")
	ErrRevealTooEarly      = errors.New("reveal is too early")
	ErrRevealExpired       = errors.New("commit expired before reveal")
	ErrTooManyCommits      = errors.New("too many unrevealed commits")
	ErrUidNotFound         = errors.New("uid not found")
	ErrWrongChain          = errors.New("wrong chain id")
)

// ErrTxDropped: a signed transaction can never land, because another
// transaction of the same sender has used its nonce. Whatever it was for
// did not happen and can be sent afresh.
var ErrTxDropped = errors.New("transaction dropped: its nonce was used by another transaction")

// ErrTxUnusable: stored transaction bytes that do not decode, or that were
// signed for another chain. Retrying cannot help.
var ErrTxUnusable = errors.New("stored transaction is unusable")

// revertNames maps subtensor's error names (which the chain, and the devnet,
// put in the revert message) to the sentinels above.
var revertNames = map[string]error{
	"SettingWeightsTooFast":           ErrRateLimited,
	"CommittingWeightsTooFast":        ErrRateLimited,
	"IncorrectWeightVersionKey":       ErrVersionKeyTooLow,
	"NeuronNoValidatorPermit":         ErrNoValidatorPermit,
	"WeightVecLengthIsLow":            ErrTooFewWeights,
	"DuplicateUids":                   ErrDuplicateUids,
	"UidVecContainInvalidOne":         ErrUnknownUid,
	"WeightVecNotEqualSize":           ErrLengthMismatch,
	"CommitRevealEnabled":             ErrCommitRevealEnabled,
	"CommitRevealDisabled":            ErrCommitRevealOff,
	"HotKeyNotRegisteredInSubNet":     ErrNotRegistered,
	"SubnetNotExists":                 ErrSubnetNotFound,
	"NoWeightsCommitFound":            ErrNoCommit,
	"InvalidRevealCommitHashNotMatch": ErrCommitMismatch,
	"RevealTooEarly":                  ErrRevealTooEarly,
	"ExpiredWeightCommit":             ErrRevealExpired,
	"TooManyUnrevealedCommits":        ErrTooManyCommits,
	"UidNotFound":                     ErrUidNotFound,
}

// RejectedError says who refused a weights extrinsic and why.
type RejectedError struct {
	Op      string // "setWeights", "commitWeights", "revealWeights"
	OnChain bool   // false: the client's preflight refused before sending
	Reason  error  // one of the sentinels
	Detail  string
}

func (e *RejectedError) Error() string {
	where := "preflight"
	if e.OnChain {
		where = "chain"
	}
	if e.Detail != "" {
		return fmt.Sprintf("%s refused by %s: %v (%s)", e.Op, where, e.Reason, e.Detail)
	}
	return fmt.Sprintf("%s refused by %s: %v", e.Op, where, e.Reason)
}

func (e *RejectedError) Unwrap() error { return e.Reason }

// classifyRevert turns a JSON-RPC error that carries a revert reason into a
// RejectedError when the reason is a known subtensor error name.
func classifyRevert(op string, err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	for name, sentinel := range revertNames {
		if strings.Contains(msg, name) {
			return &RejectedError{Op: op, OnChain: true, Reason: sentinel, Detail: name}
		}
	}
	return fmt.Errorf("%s: %w", op, err)
}

// ErrKeyInUse is returned by CheckSigner when transactions this client did
// not send use the signer's key: another process signs with it.
var ErrKeyInUse = errors.New("another process is sending transactions with this key")
