package validator

import (
	"context"

	"arena/chain"
)

// Chain is the part of the chain client the validator uses. *chain.Client
// implements it; tests put a scripted chain behind it.
type Chain interface {
	Metagraph(ctx context.Context, netuid uint16) (*chain.Metagraph, error)
	Hyperparams(ctx context.Context, netuid uint16) (*chain.Hyperparams, error)
	SetWeights(ctx context.Context, signer *chain.Signer, w chain.Weights, opts chain.TxOptions) (*chain.TxResult, error)
	CommitWeights(ctx context.Context, signer *chain.Signer, netuid uint16, hash [32]byte, opts chain.TxOptions) (*chain.TxResult, error)
	RevealWeights(ctx context.Context, signer *chain.Signer, w chain.Weights, salt []uint16, opts chain.TxOptions) (*chain.TxResult, error)
	ResumeTx(ctx context.Context, op string, raw []byte) (*chain.TxResult, error)
	// EpochSchedule reads the subnet's epoch state at a block; it fails
	// with chain.ErrNoStorageQuery on a chain without the precompile.
	EpochSchedule(ctx context.Context, netuid uint16, block uint64) (chain.EpochSchedule, error)
	// SubnetShare reads the subnet's mechanism count and MinerBurned; it
	// fails with chain.ErrNoStorageQuery on a chain without the precompile.
	SubnetShare(ctx context.Context, netuid uint16, block uint64) (chain.SubnetShare, error)
	// CheckSigner fails with a *chain.KeyInUseError when transactions this
	// client did not send use the signer's key.
	CheckSigner(ctx context.Context, signer *chain.Signer) error
}

// HeadSource delivers new heads in increasing order while Run runs, as
// *chain.HeadFollower does.
type HeadSource interface {
	Run(ctx context.Context) error
	Heads() <-chan chain.Head
}

// ClientHeads adapts a chain client's head follower to Options.FollowHeads.
func ClientHeads(c *chain.Client) func(chain.HeadsOptions) HeadSource {
	return func(o chain.HeadsOptions) HeadSource { return c.FollowHeads(o) }
}

var _ Chain = (*chain.Client)(nil)
