package devnet

import (
	"context"
	"fmt"
	"math"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/core/types"

	"arena/chain"
	"arena/chain/devnet/contracts"
)

// EpochSchedule is the subnet's epoch state at one block, read in-process from the devnet's
// state (tests compare it with what chain.Storage reads over RPC).
type EpochSchedule struct {
	Block          uint64
	Tempo          uint64
	LastEpochBlock uint64
	PendingEpochAt uint64 // 0: no trigger pending
	EpochIndex     uint64 // SubnetEpochIndex
}

// EpochScheduleAt reads the schedule at block.
func (d *Devnet) EpochScheduleAt(ctx context.Context, block uint64) (EpochSchedule, error) {
	out := EpochSchedule{Block: block}
	call := &bind.CallOpts{Context: ctx, BlockNumber: bigUint(block)}
	for _, f := range []struct {
		item uint8
		dst  *uint64
	}{
		{contracts.ItemTempo, &out.Tempo},
		{contracts.ItemLastEpochBlock, &out.LastEpochBlock},
		{contracts.ItemPendingEpochAt, &out.PendingEpochAt},
		{contracts.ItemSubnetEpochIndex, &out.EpochIndex},
	} {
		res, err := d.state.StorageItem(call, f.item, d.opts.Netuid)
		if err != nil {
			return out, fmt.Errorf("devnet epoch schedule at %d: %w", block, err)
		}
		*f.dst = res.Value.Uint64()
	}
	return out, nil
}

// SetTempo changes the subnet's tempo as root's sudo_set_tempo does: refused inside the
// admin freeze window (AdminActionProhibitedDuringWeightsWindow: an epoch trigger is pending,
// or the next automatic epoch is fewer than AdminFreezeWindow blocks away), and it restarts
// the cycle, LastEpochBlock = the block it lands in. Returns that block.
func (d *Devnet) SetTempo(ctx context.Context, tempo uint64) (uint64, error) {
	if tempo == 0 || tempo > math.MaxUint16 {
		return 0, fmt.Errorf("devnet: tempo %d: must be 1 to %d", tempo, math.MaxUint16)
	}
	block, err := d.adminTxBlock(ctx, "setTempo", func(o *bind.TransactOpts) (*types.Transaction, error) {
		return d.state.SetTempo(o, d.opts.Netuid, tempo)
	})
	if err != nil {
		return 0, err
	}
	d.tempo.Store(tempo)
	return block, nil
}

// TriggerEpoch schedules an early epoch as the subnet owner's trigger_epoch does:
// PendingEpochAt = the block the call lands in + AdminFreezeWindow. It is refused while
// commit-reveal is enabled (DynamicTempoBlockedByCommitReveal), while a trigger is pending
// (EpochTriggerAlreadyPending) and when the next automatic epoch is fewer than
// AdminFreezeWindow blocks away (AutoEpochAlreadyImminent). Returns the block the epoch
// fires at.
func (d *Devnet) TriggerEpoch(ctx context.Context) (uint64, error) {
	block, err := d.adminTxBlock(ctx, "triggerEpoch", func(o *bind.TransactOpts) (*types.Transaction, error) {
		return d.state.TriggerEpoch(o, d.opts.Netuid)
	})
	if err != nil {
		return 0, err
	}
	s, err := d.EpochScheduleAt(ctx, block)
	if err != nil {
		return 0, err
	}
	return s.PendingEpochAt, nil
}

// SetAdminFreezeWindow sets subtensor's global AdminFreezeWindow (default 10 blocks), which
// bounds SetTempo and TriggerEpoch; 0 turns the freeze off.
func (d *Devnet) SetAdminFreezeWindow(ctx context.Context, window uint16) error {
	_, err := d.adminTx(ctx, "setAdminFreezeWindow", func(o *bind.TransactOpts) (*types.Transaction, error) {
		return d.state.SetAdminFreezeWindow(o, window)
	})
	return err
}

// SetMechanismCount writes MechanismCountCurrent (the devnet has no mechanism logic).
func (d *Devnet) SetMechanismCount(ctx context.Context, count uint8) error {
	return d.storageTx(ctx, "setMechanismCount", d.opts.Netuid, count)
}

// SetMinerBurned writes MinerBurned (the devnet burns nothing itself).
func (d *Devnet) SetMinerBurned(ctx context.Context, v chain.U96F32) error {
	bits := bigUint(v.Hi)
	bits.Lsh(bits, 64).Or(bits, bigUint(v.Lo))
	return d.storageTx(ctx, "setMinerBurned", d.opts.Netuid, bits)
}

// SetCommitRevealWeightsVersion writes the chain-wide CommitRevealWeightsVersion.
func (d *Devnet) SetCommitRevealWeightsVersion(ctx context.Context, version uint16) error {
	return d.storageTx(ctx, "setCommitRevealWeightsVersion", version)
}

// storageTx calls an admin setter of StorageQuery (0x807).
func (d *Devnet) storageTx(ctx context.Context, method string, args ...any) error {
	if d.opts.WithoutStorageQuery {
		return fmt.Errorf("devnet %s: the devnet runs without StorageQuery", method)
	}
	backend := contracts.GasHeadroom(d.client)
	c := bind.NewBoundContract(contracts.StorageQueryAddress, d.storage, backend, backend, backend)
	_, err := d.adminTx(ctx, method, func(o *bind.TransactOpts) (*types.Transaction, error) {
		return c.Transact(o, method, args...)
	})
	return err
}

// adminTxBlock is adminTx returning the block the transaction landed in.
func (d *Devnet) adminTxBlock(ctx context.Context, what string, send func(*bind.TransactOpts) (*types.Transaction, error)) (uint64, error) {
	tx, err := d.adminTx(ctx, what, send)
	if err != nil {
		return 0, err
	}
	receipt, err := d.client.TransactionReceipt(ctx, tx.Hash())
	if err != nil {
		return 0, fmt.Errorf("devnet %s: receipt: %w", what, err)
	}
	return receipt.BlockNumber.Uint64(), nil
}
