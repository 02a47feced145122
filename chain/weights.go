package chain

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
)

// Signer is an unlocked secp256k1 key. Its mirror account is the hotkey the
// chain sees for every transaction it signs.
type Signer struct {
	key     *ecdsa.PrivateKey
	Address common.Address
}

// NewSigner wraps a private key.
func NewSigner(key *ecdsa.PrivateKey) *Signer {
	return &Signer{key: key, Address: crypto.PubkeyToAddress(key.PublicKey)}
}

// Hotkey is the signer's mirror account.
func (s *Signer) Hotkey() AccountID { return Mirror(s.Address) }

// PrivateKey exposes the key for signing protocol messages (the handshake).
func (s *Signer) PrivateKey() *ecdsa.PrivateKey { return s.key }

// Weights is one weights vector for a subnet, as u16 values on the wire.
type Weights struct {
	Netuid     uint16
	UIDs       []uint16
	Values     []uint16
	VersionKey uint64
}

// TxOptions tunes one transaction.
type TxOptions struct {
	// SkipPreflight sends without the client-side rule checks, so the chain
	// itself decides. Tests use it to prove the chain enforces each rule.
	SkipPreflight bool
	// GasLimit, when non-zero, skips eth_estimateGas so a transaction the
	// chain will reject is still mined (and its failure read back).
	GasLimit uint64
	// BeforeSend, if set, is given the signed transaction (its hash and
	// its binary encoding) before it is broadcast. A caller that persists
	// them can settle the transaction after a crash with ResumeTx instead
	// of guessing whether it landed. An error aborts the send: nothing is
	// broadcast and the nonce is not used. It runs under the client's
	// nonce lock, so it should be quick (one durable write).
	BeforeSend func(hash common.Hash, raw []byte) error
}

// TxResult identifies a mined transaction.
type TxResult struct {
	Hash    common.Hash
	Block   uint64
	GasUsed uint64
}

// PreflightState is what the rules need to know about the caller.
type PreflightState struct {
	NextBlock  uint64 // the earliest block the tx can land in
	UIDCount   uint16
	Registered bool
	SelfUID    uint16
	Permit     bool
	LastUpdate uint64
	Hyper      Hyperparams
}

// Preflight applies the chain's weight rules in the chain's order, so a
// transaction that would fail is refused before it costs a fee. op is
// "setWeights" or "revealWeights" (a reveal skips the rate limit and
// requires commit-reveal on).
func Preflight(op string, st PreflightState, w Weights) error {
	reject := func(reason error, format string, args ...any) error {
		return &RejectedError{Op: op, Reason: reason, Detail: fmt.Sprintf(format, args...)}
	}
	if !st.Registered {
		return reject(ErrNotRegistered, "netuid %d", w.Netuid)
	}
	switch {
	case op == "setWeights" && st.Hyper.CommitRevealEnabled:
		return reject(ErrCommitRevealEnabled, "use commit then reveal on netuid %d", w.Netuid)
	case op == "revealWeights" && !st.Hyper.CommitRevealEnabled:
		return reject(ErrCommitRevealOff, "netuid %d", w.Netuid)
	}
	if w.VersionKey < st.Hyper.WeightsVersionKey {
		return reject(ErrVersionKeyTooLow, "sending %d, subnet requires ≥ %d", w.VersionKey, st.Hyper.WeightsVersionKey)
	}
	if err := checkVectors(w.UIDs, w.Values); err != nil {
		return reject(ErrLengthMismatch, "%d uids, %d values", len(w.UIDs), len(w.Values))
	}
	seen := make(map[uint16]bool, len(w.UIDs))
	for _, uid := range w.UIDs {
		if seen[uid] {
			return reject(ErrDuplicateUids, "uid %d appears twice", uid)
		}
		seen[uid] = true
	}
	for _, uid := range w.UIDs {
		if uid >= st.UIDCount {
			return reject(ErrUnknownUid, "uid %d, subnet has %d uids", uid, st.UIDCount)
		}
	}
	selfOnly := len(w.UIDs) == 1 && w.UIDs[0] == st.SelfUID
	if !st.Permit && !selfOnly {
		return reject(ErrNoValidatorPermit, "uid %d may only weight itself", st.SelfUID)
	}
	if !selfOnly {
		nonZero := 0
		for _, v := range w.Values {
			if v != 0 {
				nonZero++
			}
		}
		need := min(int(st.Hyper.MinAllowedWeights), int(st.UIDCount))
		if nonZero < need {
			return reject(ErrTooFewWeights, "%d non-zero, subnet requires %d", nonZero, need)
		}
	}
	if op == "setWeights" {
		if err := checkRateLimit(op, st); err != nil {
			return err
		}
	}
	return nil
}

func checkRateLimit(op string, st PreflightState) error {
	if st.LastUpdate == 0 || st.NextBlock < st.LastUpdate {
		return nil
	}
	since := st.NextBlock - st.LastUpdate
	if since < st.Hyper.WeightsSetRateLimit {
		return &RejectedError{Op: op, Reason: ErrRateLimited, Detail: fmt.Sprintf(
			"%d blocks left (last update %d, limit %d)", st.Hyper.WeightsSetRateLimit-since, st.LastUpdate, st.Hyper.WeightsSetRateLimit)}
	}
	return nil
}

// preflightState reads what Preflight needs for signer on netuid at head.
func (c *Client) preflightState(ctx context.Context, signer *Signer, netuid uint16) (PreflightState, error) {
	head, err := c.HeadNumber(ctx)
	if err != nil {
		return PreflightState{}, err
	}
	hp, err := c.HyperparamsAt(ctx, netuid, head)
	if err != nil {
		return PreflightState{}, err
	}
	st := PreflightState{NextBlock: head + 1, Hyper: *hp}
	mgABI := &c.abis.metagraph
	if err := c.callBatch(ctx, head, []viewCall{{
		contract: mgABI, to: MetagraphAddress, method: "getUidCount", args: []any{netuid}, decode: into(&st.UIDCount),
	}}); err != nil {
		return st, err
	}
	if err := checkUIDCount(st.UIDCount); err != nil {
		return st, err
	}
	hotkeys := make([]AccountID, st.UIDCount)
	calls := make([]viewCall, st.UIDCount)
	for uid := range st.UIDCount {
		calls[uid] = viewCall{contract: mgABI, to: MetagraphAddress, method: "getHotkey", args: []any{netuid, uid}, decode: intoAccount(&hotkeys[uid])}
	}
	if err := c.callBatch(ctx, head, calls); err != nil {
		return st, err
	}
	self := signer.Hotkey()
	for uid, hk := range hotkeys {
		if hk == self {
			st.Registered, st.SelfUID = true, uint16(uid)
			break
		}
	}
	if !st.Registered {
		return st, nil
	}
	err = c.callBatch(ctx, head, []viewCall{
		{contract: mgABI, to: MetagraphAddress, method: "getValidatorStatus", args: []any{netuid, st.SelfUID}, decode: into(&st.Permit)},
		{contract: mgABI, to: MetagraphAddress, method: "getLastUpdate", args: []any{netuid, st.SelfUID}, decode: into(&st.LastUpdate)},
	})
	return st, err
}

// SetWeights sends a plain setWeights through the Neuron precompile.
func (c *Client) SetWeights(ctx context.Context, signer *Signer, w Weights, opts TxOptions) (*TxResult, error) {
	const op = "setWeights"
	rule := func(st PreflightState) error { return Preflight(op, st, w) }
	return c.sendNeuron(ctx, op, signer, w.Netuid, opts, rule, w.Netuid, w.UIDs, w.Values, w.VersionKey)
}

// CommitWeights commits hash (see CommitHash) for a later reveal.
func (c *Client) CommitWeights(ctx context.Context, signer *Signer, netuid uint16, hash [32]byte, opts TxOptions) (*TxResult, error) {
	const op = "commitWeights"
	rule := func(st PreflightState) error { return PreflightCommit(st, netuid) }
	return c.sendNeuron(ctx, op, signer, netuid, opts, rule, netuid, hash)
}

// RevealWeights reveals a commit made with the same weights and salt.
// Timing (the reveal epoch) is checked by the chain, not in preflight,
// because only the chain knows which commit the reveal matches.
func (c *Client) RevealWeights(ctx context.Context, signer *Signer, w Weights, salt []uint16, opts TxOptions) (*TxResult, error) {
	const op = "revealWeights"
	rule := func(st PreflightState) error { return Preflight(op, st, w) }
	return c.sendNeuron(ctx, op, signer, w.Netuid, opts, rule, w.Netuid, w.UIDs, w.Values, salt, w.VersionKey)
}

// PreflightCommit applies the chain's rules for commitWeights.
func PreflightCommit(st PreflightState, netuid uint16) error {
	const op = "commitWeights"
	switch {
	case !st.Registered:
		return &RejectedError{Op: op, Reason: ErrNotRegistered, Detail: fmt.Sprintf("netuid %d", netuid)}
	case !st.Hyper.CommitRevealEnabled:
		return &RejectedError{Op: op, Reason: ErrCommitRevealOff, Detail: fmt.Sprintf("use setWeights on netuid %d", netuid)}
	}
	return checkRateLimit(op, st)
}

// sendNeuron checks rule against the chain's current state (unless
// preflight is skipped), then calls op on the Neuron precompile with args.
func (c *Client) sendNeuron(ctx context.Context, op string, signer *Signer, netuid uint16, opts TxOptions,
	rule func(PreflightState) error, args ...any) (*TxResult, error) {
	if !opts.SkipPreflight {
		st, err := c.preflightState(ctx, signer, netuid)
		if err != nil {
			return nil, fmt.Errorf("%s preflight: %w", op, err)
		}
		if err := rule(st); err != nil {
			c.metrics.txRejected.WithLabelValues(op, "preflight").Inc()
			return nil, err
		}
	}
	data, err := c.abis.neuron.Pack(op, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return c.transact(ctx, op, signer, data, opts)
}

// ServeAxon announces where this neuron serves.
func (c *Client) ServeAxon(ctx context.Context, signer *Signer, netuid uint16, axon Axon) (*TxResult, error) {
	const op = "serveAxon"
	ip, ipType := EncodeAxonIP(axon.IP)
	data, err := c.abis.neuron.Pack(op, netuid, axon.Version, ip, axon.Port, ipType, axon.Protocol, uint8(0), uint8(0))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return c.transact(ctx, op, signer, data, TxOptions{})
}

// transact signs and sends an EIP-1559 call to the Neuron precompile and
// waits for its receipt. A revert during gas estimation or in the mined
// transaction is mapped to the chain's reason.
func (c *Client) transact(ctx context.Context, op string, signer *Signer, data []byte, opts TxOptions) (*TxResult, error) {
	to := NeuronAddress
	callCtx, cancel := context.WithTimeout(ctx, c.opts.CallTimeout)
	defer cancel()
	msg := ethereum.CallMsg{From: signer.Address, To: &to, Data: data}
	gas := opts.GasLimit
	if gas == 0 {
		est, err := c.eth.EstimateGas(callCtx, msg)
		if err != nil {
			return nil, c.rejected(op, err)
		}
		gas = est + est/5 // headroom: precompile costs can shift between estimate and inclusion
	}
	tip, err := c.eth.SuggestGasTipCap(callCtx)
	if err != nil {
		return nil, fmt.Errorf("%s: eth_maxPriorityFeePerGas: %w", op, err)
	}
	header, err := c.eth.HeaderByNumber(callCtx, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: latest header: %w", op, err)
	}
	feeCap := new(big.Int).Add(tip, new(big.Int).Mul(header.BaseFee, big.NewInt(2)))

	c.nonceMu.Lock()
	nonce, err := c.nextNonce(callCtx, signer.Address)
	if err != nil {
		c.nonceMu.Unlock()
		return nil, fmt.Errorf("%s: nonce: %w", op, err)
	}
	tx, err := types.SignNewTx(signer.key, types.LatestSignerForChainID(c.chainID), &types.DynamicFeeTx{
		ChainID: c.chainID, Nonce: nonce, GasTipCap: tip, GasFeeCap: feeCap, Gas: gas, To: &to, Data: data,
	})
	if err != nil {
		c.nonceMu.Unlock()
		return nil, fmt.Errorf("%s: sign: %w", op, err)
	}
	if opts.BeforeSend != nil {
		raw, err := tx.MarshalBinary()
		if err == nil {
			err = opts.BeforeSend(tx.Hash(), raw)
		}
		if err != nil {
			c.nonceMu.Unlock()
			return nil, fmt.Errorf("%s: before send: %w", op, err)
		}
	}
	if err := c.eth.SendTransaction(callCtx, tx); err != nil {
		delete(c.nonces, signer.Address) // re-read from the node next time
		c.nonceMu.Unlock()
		return nil, c.rejected(op, err)
	}
	c.nonces[signer.Address] = nonce + 1
	c.nonceMu.Unlock()
	c.log.Info().Str("op", op).Stringer("tx", tx.Hash()).Uint64("nonce", nonce).Msg("transaction sent")

	receipt, err := c.waitReceipt(ctx, tx.Hash())
	if err != nil {
		return nil, fmt.Errorf("%s tx %s: %w", op, tx.Hash(), err)
	}
	return c.outcome(ctx, op, msg, tx.Hash(), receipt)
}

// outcome reads a mined transaction's receipt: its block, or the chain's
// reason for a failure.
func (c *Client) outcome(ctx context.Context, op string, msg ethereum.CallMsg, hash common.Hash, receipt *types.Receipt) (*TxResult, error) {
	res := &TxResult{Hash: hash, Block: receipt.BlockNumber.Uint64(), GasUsed: receipt.GasUsed}
	if receipt.Status != types.ReceiptStatusSuccessful {
		reason := c.revertReason(ctx, msg, receipt.BlockNumber)
		c.metrics.txRejected.WithLabelValues(op, "chain").Inc()
		if reason == nil {
			return res, fmt.Errorf("%s tx %s failed in block %d", op, hash, res.Block)
		}
		return res, reason
	}
	c.metrics.txSent.WithLabelValues(op).Inc()
	c.log.Info().Str("op", op).Stringer("tx", hash).Uint64("block", res.Block).Msg("transaction mined")
	return res, nil
}

// ResumeTx settles a transaction signed earlier (raw is what
// TxOptions.BeforeSend was given) whose fate is unknown, for example after
// a crash. Mined: its outcome, as the original call would have returned
// it. Its nonce used by another transaction: ErrTxDropped. Otherwise it is
// broadcast again (the same bytes, so it can land at most once) and
// awaited. The decision rests on the receipt and the sender's nonce, not
// on the node's wording for a duplicate.
func (c *Client) ResumeTx(ctx context.Context, op string, raw []byte) (*TxResult, error) {
	tx := new(types.Transaction)
	if err := tx.UnmarshalBinary(raw); err != nil {
		return nil, fmt.Errorf("%s: %w: %w", op, ErrTxUnusable, err)
	}
	from, err := types.Sender(types.LatestSignerForChainID(c.chainID), tx)
	if err != nil {
		return nil, fmt.Errorf("%s tx %s: %w: %w", op, tx.Hash(), ErrTxUnusable, err)
	}
	msg := ethereum.CallMsg{From: from, To: tx.To(), Data: tx.Data()}
	mined := func() (*types.Receipt, error) {
		callCtx, cancel := context.WithTimeout(ctx, c.opts.CallTimeout)
		defer cancel()
		receipt, err := c.eth.TransactionReceipt(callCtx, tx.Hash())
		if errors.Is(err, ethereum.NotFound) {
			return nil, nil
		}
		return receipt, err
	}
	receipt, err := mined()
	if err != nil {
		return nil, fmt.Errorf("%s tx %s: receipt: %w", op, tx.Hash(), err)
	}
	if receipt == nil {
		callCtx, cancel := context.WithTimeout(ctx, c.opts.CallTimeout)
		used, err := c.eth.NonceAt(callCtx, from, nil)
		cancel()
		if err != nil {
			return nil, fmt.Errorf("%s tx %s: nonce: %w", op, tx.Hash(), err)
		}
		if used > tx.Nonce() {
			// It may have been mined between the two reads.
			if receipt, err = mined(); err != nil {
				return nil, fmt.Errorf("%s tx %s: receipt: %w", op, tx.Hash(), err)
			}
			if receipt == nil {
				return nil, fmt.Errorf("%s tx %s (nonce %d, account at %d): %w", op, tx.Hash(), tx.Nonce(), used, ErrTxDropped)
			}
		}
	}
	if receipt == nil {
		callCtx, cancel := context.WithTimeout(ctx, c.opts.CallTimeout)
		err := c.eth.SendTransaction(callCtx, tx)
		cancel()
		if err != nil {
			// Most likely "already known": the node still holds it.
			c.log.Debug().Err(err).Stringer("tx", tx.Hash()).Msg("rebroadcast refused; waiting for the receipt")
		} else {
			c.log.Info().Str("op", op).Stringer("tx", tx.Hash()).Uint64("nonce", tx.Nonce()).Msg("transaction rebroadcast")
		}
		if receipt, err = c.waitReceipt(ctx, tx.Hash()); err != nil {
			return nil, fmt.Errorf("%s tx %s: %w", op, tx.Hash(), err)
		}
	}
	return c.outcome(ctx, op, msg, tx.Hash(), receipt)
}

func (c *Client) rejected(op string, err error) error {
	out := classifyRevert(op, err)
	var rej *RejectedError
	if errors.As(out, &rej) {
		c.metrics.txRejected.WithLabelValues(op, "chain").Inc()
	}
	return out
}

// nextNonce returns the next nonce for addr; callers hold nonceMu. The
// local counter lets several transactions go out before the first is mined.
func (c *Client) nextNonce(ctx context.Context, addr common.Address) (uint64, error) {
	pending, err := c.eth.PendingNonceAt(ctx, addr)
	if err != nil {
		return 0, err
	}
	if local, ok := c.nonces[addr]; ok && local > pending {
		return local, nil
	}
	return pending, nil
}

// revertReason replays a failed call just before its block to recover the
// revert message, which receipts do not carry.
func (c *Client) revertReason(ctx context.Context, msg ethereum.CallMsg, block *big.Int) error {
	ctx, cancel := context.WithTimeout(ctx, c.opts.CallTimeout)
	defer cancel()
	parent := new(big.Int).Sub(block, big.NewInt(1))
	_, err := c.eth.CallContract(ctx, msg, parent)
	if err == nil {
		return nil
	}
	var rej *RejectedError
	out := classifyRevert("", err)
	if errors.As(out, &rej) {
		return out
	}
	return nil
}

func (c *Client) waitReceipt(ctx context.Context, hash common.Hash) (*types.Receipt, error) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.ReceiptTimeout)
	defer cancel()
	ticker := time.NewTicker(c.opts.ReceiptPoll)
	defer ticker.Stop()
	for {
		receipt, err := c.eth.TransactionReceipt(ctx, hash)
		if err == nil {
			return receipt, nil
		}
		if !errors.Is(err, ethereum.NotFound) && ctx.Err() == nil {
			c.log.Debug().Err(err).Stringer("tx", hash).Msg("receipt not yet available")
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("no receipt after %s: %w", c.opts.ReceiptTimeout, ctx.Err())
		case <-ticker.C:
		}
	}
}

// CheckSigner looks for transactions from signer's address that this
// client did not send: once it has sent one, the account's nonce (mined,
// or pending in the node's pool) can only reach the next nonce it will
// use; beyond that another process signs with the same key, and the two
// would replace or duplicate each other's weights. It returns ErrKeyInUse
// with what was seen, nil before this client has sent anything.
func (c *Client) CheckSigner(ctx context.Context, signer *Signer) error {
	c.nonceMu.Lock()
	next, ok := c.nonces[signer.Address]
	c.nonceMu.Unlock()
	if !ok {
		return nil
	}
	callCtx, cancel := context.WithTimeout(ctx, c.opts.CallTimeout)
	defer cancel()
	mined, err := c.eth.NonceAt(callCtx, signer.Address, nil)
	if err != nil {
		return fmt.Errorf("check signer: nonce: %w", err)
	}
	pending, err := c.eth.PendingNonceAt(callCtx, signer.Address)
	if err != nil {
		return fmt.Errorf("check signer: pending nonce: %w", err)
	}
	if mined > next || pending > next {
		return &KeyInUseError{Address: signer.Address, Next: next, Mined: mined, Pending: pending}
	}
	return nil
}

// KeyInUseError is CheckSigner's finding: the account's nonces went past
// the next one this client would use.
type KeyInUseError struct {
	Address              common.Address
	Next, Mined, Pending uint64
}

func (e *KeyInUseError) Error() string {
	return fmt.Sprintf("%v: account %s is at nonce %d (%d pending), but this process's next transaction would be %d",
		ErrKeyInUse, e.Address.Hex(), e.Mined, e.Pending, e.Next)
}

func (e *KeyInUseError) Unwrap() error { return ErrKeyInUse }
