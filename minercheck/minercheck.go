package minercheck

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/rs/zerolog"

	"arena/chain"
	"arena/config"
	"arena/episode"
	"arena/relay"
	"arena/shop"
	"arena/shop/gen"
)

// Clause names one requirement of the protocol the check tests.
type Clause string

// The clauses, in report order.
const (
	Handshake   Clause = "handshake"
	Signature   Clause = "signature"
	Replay      Clause = "replay"
	Version     Clause = "version"
	ForgedHello Clause = "forged_hello"
	CloseCodes  Clause = "close_codes"
	Messages    Clause = "messages"
	Concurrency Clause = "concurrency"
	OneStep     Clause = "one_step"
	Limits      Clause = "limits"
	Timeouts    Clause = "timeouts"
	ToolCalls   Clause = "tool_calls"
	ToolErrors  Clause = "tool_errors"
	// Protocol version 2, the inference relay (docs/protocol.md, section 9).
	Negotiation   Clause = "negotiation"
	Infer         Clause = "infer"
	InferRequests Clause = "infer_requests"
	Verified      Clause = "verified"
	Dictated      Clause = "dictated"
	RelayErrors   Clause = "relay_errors"
)

// Clauses lists every clause in report order.
func Clauses() []Clause {
	return []Clause{Handshake, Signature, Replay, Version, ForgedHello, CloseCodes, Messages, Concurrency, OneStep, Limits, Timeouts, ToolCalls, ToolErrors,
		Negotiation, Infer, InferRequests, Verified, Dictated, RelayErrors}
}

// Describe says in one line what the clause requires.
func (c Clause) Describe() string {
	switch c {
	case Handshake:
		return "a fresh hello gets a well-formed hello_ack in time: version 1, the nonce echoed, timestamp within 30 s"
	case Signature:
		return "the hello_ack signature recovers to miner_address over the payload naming this validator and nonce"
	case Replay:
		return "a hello reusing an accepted nonce, and one 1 h old, are refused: closed without hello_ack"
	case Version:
		return "a hello of version 2 is refused: closed without hello_ack"
	case ForgedHello:
		return "a hello not signed by its validator_address is refused: closed without hello_ack"
	case CloseCodes:
		return "refusals, also of a malformed hello or another first message, are close frames 1008 naming the reason; no mid-episode drops"
	case Messages:
		return "every frame the miner sends is a text frame holding a valid step message (an infer is the infer clause's)"
	case Concurrency:
		return "episodes started at once on one connection all answer step 0 before any observation, and end normally"
	case OneStep:
		return "exactly one step per episode_start or observation that does not end the episode; none unsolicited"
	case Limits:
		return "think, tool calls per step and frames within the announced limits (small ones in one episode)"
	case Timeouts:
		return "every step within the announced step timeout, every episode within the episode timeout"
	case ToolCalls:
		return "tool calls name tools that episode_start offered, with JSON-object parameters and ids unique in the step"
	case ToolErrors:
		return "after an observation of error results, a valid step, and terminate within max_steps"
	case Negotiation:
		return "a hello offering max_version 2 gets a hello_ack of version 2, signed over the version-2 payload"
	case Infer:
		return "infers are valid, name a live episode of the connection whose step is owed, and never reuse a request_id of the episode"
	case InferRequests:
		return "every infer body is one the relay forwards: a model of relay.models, relayed fields in bounds, max_tokens within relay.max_tokens"
	case Verified:
		return "every step names a completion of its episode, requested after its previous observation, and is exactly that completion"
	case Dictated:
		return "no verified step's completion chose a value its prompt names outside the query and the observations"
	case RelayErrors:
		return "after provider_error answers, and with the episode's completions spent, valid steps in time and terminate"
	}
	return ""
}

// Options configure New. Zero fields take the defaults; tests shorten the
// timeouts.
type Options struct {
	// DialTimeout bounds connecting (TCP and websocket upgrade); default 5 s.
	DialTimeout time.Duration
	// HandshakeTimeout bounds waiting for hello_ack; default 5 s, the
	// validator's.
	HandshakeTimeout time.Duration
	// RefusalTimeout bounds waiting for the miner to close a connection
	// whose hello it must refuse; default 3 s.
	RefusalTimeout time.Duration
	// WriteTimeout bounds sending one frame; default 5 s.
	WriteTimeout time.Duration
	// StepTimeout is announced as step_timeout_ms and enforced; default
	// 10 s. A validator announces 60 s: raise it for slow agents.
	StepTimeout time.Duration
	// MaxSteps is announced as max_steps; default 8.
	MaxSteps int
	// ExtraStepWait is how long the one_step clause waits after each step
	// for an unsolicited second one before it answers; default 500 ms.
	ExtraStepWait time.Duration
	// Concurrent is the number of episodes the concurrency clause starts
	// at once on one connection; default 3.
	Concurrent int
	// SmallThinkBytes and SmallToolCalls are the limits the limits clause
	// announces; defaults 256 and 2.
	SmallThinkBytes int
	SmallToolCalls  int
	// Products is the size of the generated catalog the tool calls run
	// on; default 2000.
	Products int
	// MaxVersion is the highest protocol version the check offers;
	// default episode.MaxVersion. 1 checks a version-1 miner: the
	// version-2 clauses are skipped.
	MaxVersion int
	// Models is the relay's allowlist announced in episode_start;
	// default the subnet's (config.DefaultRelayModels). The scripted
	// model answers as any of them.
	Models []string
	// SpentCompletions is max_completions in the relay_errors clause's
	// episode that runs out of completions; default 2.
	SpentCompletions int
}

func (o Options) withDefaults() Options {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.DialTimeout, 5*time.Second)
	def(&o.HandshakeTimeout, 5*time.Second)
	def(&o.RefusalTimeout, 3*time.Second)
	def(&o.WriteTimeout, 5*time.Second)
	def(&o.StepTimeout, 10*time.Second)
	def(&o.ExtraStepWait, 500*time.Millisecond)
	if o.MaxSteps <= 0 {
		o.MaxSteps = 8
	}
	if o.Concurrent <= 0 {
		o.Concurrent = 3
	}
	if o.SmallThinkBytes <= 0 {
		o.SmallThinkBytes = 256
	}
	if o.SmallToolCalls <= 0 {
		o.SmallToolCalls = 2
	}
	if o.Products <= 0 {
		o.Products = 2000
	}
	if o.MaxVersion <= 0 {
		o.MaxVersion = episode.MaxVersion
	}
	if len(o.Models) == 0 {
		o.Models = config.Default().Relay.ModelList()
	}
	if o.SpentCompletions <= 0 {
		o.SpentCompletions = 2
	}
	return o
}

// limits are the limits announced in an ordinary episode: the
// validator's defaults, except the shorter step timeout and step budget
// that keep the check quick. The episode timeout leaves room for the
// concurrency clause's wait for every episode's first step.
func (o Options) limits() episode.Limits {
	l := episode.DefaultLimits()
	l.MaxSteps = o.MaxSteps
	l.StepTimeout = o.StepTimeout
	l.EpisodeTimeout = time.Duration(o.MaxSteps+1) * o.StepTimeout
	return l
}

// smallLimits are the limits clause's: small enough that an agent that
// ignores what it is announced breaks them.
func (o Options) smallLimits() episode.Limits {
	l := o.limits()
	l.MaxThinkBytes = o.SmallThinkBytes
	l.MaxToolCalls = o.SmallToolCalls
	l.MaxFrameBytes = max(64<<10, 2*o.SmallThinkBytes)
	return l
}

// Checker checks miner endpoints. It is safe to Run several at once.
type Checker struct {
	opts    Options
	tools   *shop.Tools
	queries []string
	log     zerolog.Logger

	// relay is offered in every version-2 episode; spent, with
	// SpentCompletions completions an episode, in relay_errors'.
	relay, spent  *relay.Relay
	models        []string
	maxInferBytes int
}

// New generates the catalog the tool calls run on and checks the options.
func New(opts Options, log zerolog.Logger) (*Checker, error) {
	opts = opts.withDefaults()
	for _, l := range []episode.Limits{opts.limits(), opts.smallLimits()} {
		if err := l.Validate(); err != nil {
			return nil, fmt.Errorf("miner check: %w", err)
		}
	}
	if opts.MaxVersion > episode.MaxVersion {
		return nil, fmt.Errorf("miner check: protocol version %d: this check speaks up to %d", opts.MaxVersion, episode.MaxVersion)
	}
	quietRelay := log.Level(max(log.GetLevel(), zerolog.ErrorLevel))
	rl, err := newRelay(opts.Models, relay.Budget{}, quietRelay)
	if err != nil {
		return nil, fmt.Errorf("miner check: %w", err)
	}
	spent, err := newRelay(opts.Models, relay.Budget{Completions: opts.SpentCompletions}, quietRelay)
	if err != nil {
		return nil, fmt.Errorf("miner check: %w", err)
	}
	ctx := context.Background()
	// Building the catalog is not news to someone checking a miner.
	quiet := log.Level(max(log.GetLevel(), zerolog.WarnLevel))
	tools, products, err := gen.Tools(ctx, gen.Options{Products: opts.Products, Seed: 1}, shop.IndexOptions{Workers: 2}, quiet)
	if err != nil {
		return nil, fmt.Errorf("miner check: catalog: %w", err)
	}
	// Queries an agent can act on: a product that exists, asked for by
	// the first words of its title.
	var queries []string
	for i := 0; i < len(products) && len(queries) < 16; i += len(products)/16 + 1 {
		words := strings.Fields(products[i].Title)
		queries = append(queries, "I want "+strings.Join(words[:min(4, len(words))], " "))
	}
	return &Checker{opts: opts, tools: tools, queries: queries, log: log.With().Str("component", "minercheck").Logger(),
		relay: rl, spent: spent, models: opts.Models, maxInferBytes: episode.DefaultMaxInferBytes}, nil
}

// ParseEndpoint checks a miner URL, ws://HOST:PORT/arena/v1, and returns
// its HOST:PORT.
func ParseEndpoint(raw string) (string, error) {
	hostport, err := episode.ParseMinerURL(raw)
	if err != nil {
		return "", fmt.Errorf("endpoint %w", err)
	}
	return hostport, nil
}

// Run checks the miner at endpoint (ws://HOST:PORT/arena/v1) clause by
// clause. It fails only when the check cannot run: a bad URL, an endpoint
// that cannot be reached or does not upgrade to a websocket, a cancelled
// ctx. Everything the miner does once connected is a clause result.
func (c *Checker) Run(ctx context.Context, endpoint string) (*Report, error) {
	hostport, err := ParseEndpoint(endpoint)
	if err != nil {
		return nil, err
	}
	key, err := crypto.GenerateKey()
	if err != nil {
		return nil, fmt.Errorf("miner check: %w", err)
	}
	r := &run{c: c, opts: c.opts, hostport: hostport, validator: chain.NewSigner(key), log: c.log.With().Str("endpoint", endpoint).Logger(),
		results: map[Clause]Result{}}
	if err := r.checkHandshake(ctx); err != nil {
		return nil, err
	}
	if r.ack != nil && r.results[Handshake].Status == Pass {
		if err := r.checkRefusals(ctx); err != nil {
			return nil, err
		}
		r.checkNegotiation(ctx)
		r.checkEpisodes(ctx)
		r.judgeEvidence()
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("miner check interrupted: %w", err)
	}
	rep := &Report{Endpoint: endpoint}
	if r.ack != nil {
		rep.Miner = r.minerAddr.Hex()
		rep.Hotkey = chain.Mirror(r.minerAddr).SS58()
	}
	for _, cl := range Clauses() {
		res, ok := r.results[cl]
		if !ok {
			res = Result{Clause: cl, Status: Skip, Detail: "not checked: the handshake clause failed"}
		}
		rep.add(res)
	}
	return rep, nil
}

// run is one Run's state: the throwaway validator key (the replay
// clause reuses its accepted hello) and the evidence the clauses that
// look across episodes judge at the end.
type run struct {
	c         *Checker
	opts      Options
	hostport  string
	validator *chain.Signer
	log       zerolog.Logger

	hello     []byte // the frame of the hello the miner accepted
	ack       *episode.HelloAck
	minerAddr common.Address
	// v2: the miner took protocol version 2 (the negotiation clause), so
	// episodes offer it with the relay.
	v2 bool
	// stray are infers that named no live episode of their connection;
	// fault and spent are the relay_errors clause's episodes.
	stray        []string
	fault, spent *played

	refusals []refusal
	played   []*played
	verdicts map[Clause]*verdict
	results  map[Clause]Result
}

func (r *run) set(cl Clause, status Status, start time.Time, format string, args ...any) {
	res := Result{Clause: cl, Status: status, Detail: fmt.Sprintf(format, args...), Duration: time.Since(start)}
	r.results[cl] = res
	r.log.Debug().Str("clause", string(cl)).Str("status", string(status)).Str("detail", res.Detail).Msg("clause checked")
}
