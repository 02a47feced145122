package chain

import (
	"context"
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"
	"golang.org/x/sync/errgroup"
)

// viewCall is one eth_call against a precompile, decoded into out by the
// method's ABI.
type viewCall struct {
	contract *abi.ABI
	to       common.Address
	method   string
	args     []any
	decode   func(values []any) error
}

// rawCall is one eth_call. done receives its output, or the JSON-RPC error the node answered
// it with; an error from done fails the batch.
type rawCall struct {
	to   common.Address
	data []byte
	done func(out []byte, err error) error
}

// callBatch runs calls as eth_call batches pinned to one block, so a
// snapshot is consistent even while the chain moves.
func (c *Client) callBatch(ctx context.Context, block uint64, calls []viewCall) error {
	raws, err := rawViewCalls(calls)
	if err != nil {
		return err
	}
	return c.rawBatch(ctx, hexutil.EncodeUint64(block), raws)
}

// rawViewCalls packs calls, each decoded by its method's ABI; a call the node refuses becomes
// the error classifyRevert gives it.
func rawViewCalls(calls []viewCall) ([]rawCall, error) {
	raws := make([]rawCall, len(calls))
	for i, call := range calls {
		data, err := call.contract.Pack(call.method, call.args...)
		if err != nil {
			return nil, fmt.Errorf("pack %s: %w", call.method, err)
		}
		raws[i] = rawCall{to: call.to, data: data, done: func(out []byte, err error) error {
			if err != nil {
				return classifyRevert(fmt.Sprintf("%s%v", call.method, call.args), err)
			}
			values, err := call.contract.Unpack(call.method, out)
			if err != nil {
				return fmt.Errorf("decode %s%v: %w", call.method, call.args, err)
			}
			if err := call.decode(values); err != nil {
				return fmt.Errorf("decode %s%v: %w", call.method, call.args, err)
			}
			return nil
		}}
	}
	return raws, nil
}

// rawBatch runs calls as eth_call batches at blockTag: batches of opts.BatchSize,
// opts.BatchParallelism at a time. Once every batch is answered, each call's done runs in
// order; the first error wins.
func (c *Client) rawBatch(ctx context.Context, blockTag string, calls []rawCall) error {
	if len(calls) == 0 {
		return nil
	}
	elems := make([]rpc.BatchElem, len(calls))
	results := make([]hexutil.Bytes, len(calls))
	for i, call := range calls {
		elems[i] = rpc.BatchElem{
			Method: "eth_call",
			Args:   []any{map[string]any{"to": call.to, "data": hexutil.Bytes(call.data)}, blockTag},
			Result: &results[i],
		}
	}
	group, gctx := errgroup.WithContext(ctx)
	group.SetLimit(c.opts.BatchParallelism)
	for start := 0; start < len(elems); start += c.opts.BatchSize {
		chunk := elems[start:min(start+c.opts.BatchSize, len(elems))]
		group.Go(func() error {
			cctx, cancel := context.WithTimeout(gctx, c.opts.CallTimeout)
			defer cancel()
			err := c.withRedial(cctx, func() error { return c.rpc.BatchCallContext(cctx, chunk) })
			if err != nil {
				return fmt.Errorf("eth_call batch: %w", err)
			}
			return nil
		})
	}
	if err := group.Wait(); err != nil {
		c.metrics.rpcErrors.Inc()
		return err
	}
	for i, call := range calls {
		if err := call.done(results[i], elems[i].Error); err != nil {
			return err
		}
	}
	return nil
}

// into returns a decoder storing the single return value in dst.
func into[T any](dst *T) func([]any) error {
	return func(values []any) error {
		if len(values) != 1 {
			return fmt.Errorf("%d return values, want 1", len(values))
		}
		v, ok := values[0].(T)
		if !ok {
			return fmt.Errorf("return type %T, want %T", values[0], *dst)
		}
		*dst = v
		return nil
	}
}

// intoAccount decodes a bytes32 return into an AccountID.
func intoAccount(dst *AccountID) func([]any) error {
	var raw [32]byte
	return func(values []any) error {
		if err := into(&raw)(values); err != nil {
			return err
		}
		*dst = raw
		return nil
	}
}

// withRedial runs call and, if it failed on the transport (not with a
// JSON-RPC error), runs it once more: after a websocket drop go-ethereum's
// client fails the first write and redials on the next one.
func (c *Client) withRedial(ctx context.Context, call func() error) error {
	err := call()
	if err == nil || ctx.Err() != nil {
		return err
	}
	var rpcErr rpc.Error
	if errors.As(err, &rpcErr) {
		return err
	}
	c.log.Debug().Err(err).Msg("transport error, retrying once")
	return call()
}
