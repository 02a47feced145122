package devarena

import (
	"bytes"
	"compress/flate"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"

	"arena/episode"
	"arena/shop"
	"arena/suite"
	"arena/validator"
	"arena/validator/records"
)

// recorder keeps every byte each miner READ from its connections, that is
// every byte the validator sent to a miner, handshake and frames included.
type recorder struct {
	mu    sync.Mutex
	conns []*recConn
}

type recListener struct {
	net.Listener
	rec *recorder
	uid uint16
}

func (l *recListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	rc := &recConn{Conn: c, uid: l.uid}
	l.rec.mu.Lock()
	l.rec.conns = append(l.rec.conns, rc)
	l.rec.mu.Unlock()
	return rc, nil
}

type recConn struct {
	net.Conn
	uid uint16
	mu  sync.Mutex
	buf bytes.Buffer
}

func (c *recConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.mu.Lock()
		c.buf.Write(p[:n])
		c.mu.Unlock()
	}
	return n, err
}

// streams snapshots every connection's bytes so far.
func (r *recorder) streams() map[*recConn][]byte {
	r.mu.Lock()
	conns := append([]*recConn(nil), r.conns...)
	r.mu.Unlock()
	out := make(map[*recConn][]byte, len(conns))
	for _, c := range conns {
		c.mu.Lock()
		out[c] = bytes.Clone(c.buf.Bytes())
		c.mu.Unlock()
	}
	return out
}

// wsStream is what parseClientStream recovered from one connection.
type wsStream struct {
	request  string   // the HTTP upgrade request
	messages [][]byte // text/binary message payloads, unmasked and inflated
	frames   int
	unmasked int // data frames that came without a mask (RFC 6455 forbids it)
	deflated int // messages with RSV1 set (permessage-deflate)
}

// parseClientStream decodes the client→server direction of a websocket
// connection (RFC 6455 §5.2): the HTTP upgrade request, then frames of
// FIN/RSV/opcode, a 7/16/64-bit payload length, a mask bit with its 4-byte
// key, and the XOR-masked payload. Fragmented messages are reassembled,
// control frames skipped, and permessage-deflate messages inflated. A frame
// cut off at the end of the recording (still in flight) is dropped.
func parseClientStream(raw []byte) (wsStream, error) {
	var s wsStream
	end := bytes.Index(raw, []byte("\r\n\r\n"))
	if end < 0 {
		if len(raw) == 0 {
			return s, nil
		}
		return s, fmt.Errorf("no complete HTTP request in %d bytes", len(raw))
	}
	s.request = string(raw[:end])
	if !strings.HasPrefix(s.request, "GET ") {
		return s, fmt.Errorf("stream does not start with an HTTP GET: %q", s.request[:min(40, len(s.request))])
	}
	rest := raw[end+4:]
	var cur []byte
	var curDeflate, inMsg bool
	for {
		if len(rest) < 2 {
			return s, nil
		}
		b0, b1 := rest[0], rest[1]
		fin, rsv1, opcode := b0&0x80 != 0, b0&0x40 != 0, b0&0x0f
		masked, n := b1&0x80 != 0, uint64(b1&0x7f)
		hdr := 2
		switch n {
		case 126:
			if len(rest) < 4 {
				return s, nil
			}
			n, hdr = uint64(binary.BigEndian.Uint16(rest[2:4])), 4
		case 127:
			if len(rest) < 10 {
				return s, nil
			}
			n, hdr = binary.BigEndian.Uint64(rest[2:10]), 10
		}
		var key []byte
		if masked {
			if len(rest) < hdr+4 {
				return s, nil
			}
			key, hdr = rest[hdr:hdr+4], hdr+4
		}
		if uint64(len(rest)-hdr) < n {
			return s, nil // in flight
		}
		payload := bytes.Clone(rest[hdr : hdr+int(n)])
		rest = rest[hdr+int(n):]
		for i := range payload {
			if masked {
				payload[i] ^= key[i%4]
			}
		}
		s.frames++
		switch opcode {
		case 0x1, 0x2:
			if inMsg {
				return s, errors.New("new data frame inside a fragmented message")
			}
			if !masked {
				s.unmasked++
			}
			cur, curDeflate, inMsg = payload, rsv1, true
		case 0x0:
			if !inMsg {
				return s, errors.New("continuation frame outside a message")
			}
			cur = append(cur, payload...)
		case 0x8, 0x9, 0xA:
			continue // close, ping, pong
		default:
			return s, fmt.Errorf("reserved opcode %#x", opcode)
		}
		if !fin {
			continue
		}
		inMsg = false
		if curDeflate {
			s.deflated++
			fr := flate.NewReader(io.MultiReader(bytes.NewReader(cur), bytes.NewReader([]byte{0x00, 0x00, 0xff, 0xff, 0x01, 0x00, 0x00, 0xff, 0xff})))
			out, err := io.ReadAll(fr)
			if err != nil {
				return s, fmt.Errorf("inflate: %w", err)
			}
			cur = out
		}
		s.messages = append(s.messages, cur)
	}
}

// TestParseClientStream checks the frame parser on frames built by hand, so
// the leak test's recording is decoded right (a parser that saw nothing
// would make the leak test vacuous).
func TestParseClientStream(t *testing.T) {
	frame := func(b0 byte, payload []byte) []byte {
		key := []byte{0x11, 0x22, 0x33, 0x44}
		var h []byte
		switch n := len(payload); {
		case n < 126:
			h = []byte{b0, 0x80 | byte(n)}
		case n < 1<<16:
			h = []byte{b0, 0x80 | 126, byte(n >> 8), byte(n)}
		default:
			h = binary.BigEndian.AppendUint64([]byte{b0, 0x80 | 127}, uint64(n))
		}
		h = append(h, key...)
		for i, c := range payload {
			h = append(h, c^key[i%4])
		}
		return h
	}
	long := bytes.Repeat([]byte("x"), 70_000)
	mid := bytes.Repeat([]byte("y"), 300)
	var stream []byte
	stream = append(stream, "GET /arena/v1 HTTP/1.1\r\nHost: x\r\n\r\n"...)
	stream = append(stream, frame(0x81, []byte(`{"a":1}`))...)
	stream = append(stream, frame(0x89, []byte("ping"))...)
	stream = append(stream, frame(0x01, []byte(`{"b":`))...) // fragmented
	stream = append(stream, frame(0x80, []byte(`2}`))...)
	stream = append(stream, frame(0x81, mid)...)
	stream = append(stream, frame(0x82, long)...)
	stream = append(stream, frame(0x81, []byte("cut off"))[:5]...)
	s, err := parseClientStream(stream)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]byte{[]byte(`{"a":1}`), []byte(`{"b":2}`), mid, long}
	if len(s.messages) != len(want) {
		t.Fatalf("%d messages, want %d", len(s.messages), len(want))
	}
	for i := range want {
		if !bytes.Equal(s.messages[i], want[i]) {
			t.Errorf("message %d = %.40q, want %.40q", i, s.messages[i], want[i])
		}
	}
	if s.unmasked != 0 || s.deflated != 0 {
		t.Errorf("unmasked %d deflated %d", s.unmasked, s.deflated)
	}
}

// forbiddenKey matches a problem's answer fields used as JSON keys.
var forbiddenKey = regexp.MustCompile(`"(reward|targets|cluster|price_after_voucher)"\s*:`)

// TestNoAnswerLeaksToMiners runs a full arena (qualifying, a race, weights)
// with every miner connection recorded, decodes every websocket message the
// validator sent, and checks that none carries a problem's answer: the JSON
// keys reward/targets/cluster/price_after_voucher, any cluster id, a
// problem's serialized reward, or (in that problem's own episodes, outside
// the query the miner must see and outside catalog "price" fields) its
// voucher's price_after_voucher.
func TestNoAnswerLeaksToMiners(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a full arena")
	}
	rec := &recorder{}
	a, events := testArena(t, func(o *Options) {
		o.Miners = 3
		o.WrapListener = func(uid uint16, ln net.Listener) net.Listener { return &recListener{Listener: ln, rec: rec, uid: uid} }
	})
	raceDone := waitEvent(t, events, 3*time.Minute, func(e validator.Event) bool { return e.Kind == validator.EventRaceDone })
	waitEvent(t, events, 3*time.Minute, func(e validator.Event) bool {
		return e.Kind == validator.EventWeightsSet && e.RaceID >= raceDone.RaceID
	})

	// What was stored: every episode (qualifying and race) and its problem.
	var stored []records.Episode
	var rc records.Race
	rs := a.Stack.Validator.Records()
	err := a.Stack.Store.View(func(txn *badger.Txn) error {
		var ok bool
		var err error
		if rc, ok, err = rs.GetRace(txn, raceDone.RaceID); err != nil || !ok {
			return fmt.Errorf("race %d: ok=%v err=%v", raceDone.RaceID, ok, err)
		}
		return rs.ForEachEpisode(txn, func(e *records.Episode, _ *records.Verdict) error {
			stored = append(stored, *e)
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	problems := map[string]suite.Problem{}
	load := func(id string) {
		if _, ok := problems[id]; ok || id == "" {
			return
		}
		p, ok, err := a.Stack.Ledger.Problem(id)
		if err != nil || !ok {
			t.Fatalf("problem %s: ok=%v err=%v", id, ok, err)
		}
		problems[id] = p
	}
	for _, id := range rc.Problems {
		load(id)
	}
	episodeProblem := map[string]string{}
	var kinds = map[records.Kind]int{}
	for _, e := range stored {
		load(e.Trajectory.ProblemID)
		episodeProblem[e.Trajectory.EpisodeID] = e.Trajectory.ProblemID
		kinds[e.Kind]++
	}
	if kinds[records.Qualifying] == 0 || kinds[records.Racing] == 0 {
		t.Fatalf("stored episodes by kind %v: want qualifying and race episodes", kinds)
	}
	all, err := a.Stack.Ledger.AllProblems(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	clusters := map[string]bool{}
	for _, p := range all {
		if p.Cluster != "" {
			clusters[p.Cluster] = true
		}
	}
	for _, p := range problems {
		if p.Cluster == "" {
			t.Fatalf("problem %s has no cluster", p.ID)
		}
		clusters[p.Cluster] = true
	}

	// Decode everything the miners read.
	type msg struct {
		uid     uint16
		typ     string
		episode string
		raw     []byte
	}
	var msgs []msg
	var upgrades int
	for c, raw := range rec.streams() {
		s, err := parseClientStream(raw)
		if err != nil {
			t.Fatalf("miner uid %d: %v", c.uid, err)
		}
		if s.request == "" {
			continue
		}
		upgrades++
		if strings.Contains(strings.ToLower(s.request), "permessage-deflate") {
			t.Logf("validator offers permessage-deflate (messages inflated: %d)", s.deflated)
		}
		if s.unmasked != 0 {
			t.Errorf("miner uid %d: %d unmasked client frames", c.uid, s.unmasked)
		}
		for _, m := range s.messages {
			var head struct {
				Type      string `json:"type"`
				EpisodeID string `json:"episode_id"`
			}
			if err := json.Unmarshal(m, &head); err != nil {
				t.Fatalf("miner uid %d: message is not JSON: %v: %.200q", c.uid, err, m)
			}
			msgs = append(msgs, msg{c.uid, head.Type, head.EpisodeID, m})
		}
	}

	// The recording must be complete enough for the scan to mean something:
	// every stored episode that reached its first step was seen starting,
	// with its query, and observations went out.
	starts := map[string]string{} // episode id -> query
	byType := map[string]int{}
	for _, m := range msgs {
		byType[m.typ]++
		if m.typ == episode.TypeEpisodeStart {
			var es episode.EpisodeStart
			if err := json.Unmarshal(m.raw, &es); err != nil {
				t.Fatal(err)
			}
			if es.Query == "" {
				t.Errorf("episode_start %s without a query", es.EpisodeID)
			}
			starts[es.EpisodeID] = es.Query
		}
	}
	// Tool schema and limits are the same in every episode, so they cannot
	// carry anything of one problem.
	var schema []byte
	for _, m := range msgs {
		if m.typ != episode.TypeEpisodeStart {
			continue
		}
		var es episode.EpisodeStart
		if err := json.Unmarshal(m.raw, &es); err != nil {
			t.Fatal(err)
		}
		lim, err := json.Marshal(es.Limits)
		if err != nil {
			t.Fatal(err)
		}
		static := append(append([]byte(nil), es.Tools...), lim...)
		if schema == nil {
			schema = static
		} else if !bytes.Equal(schema, static) {
			t.Errorf("episode %s: tools or limits differ from the other episodes' (%d vs %d bytes)", es.EpisodeID, len(static), len(schema))
		}
	}
	// Replays run on the newest stock: right only while the shop has not
	// restocked since the first episode (block 0's stock).
	stock := a.Stack.Shop.Current()
	if stock.Lots != 0 {
		t.Fatalf("the shop restocked while the test ran (%d lots): replay the episodes on the stocks they ran on", stock.Lots)
	}
	replayed := map[string][][]json.RawMessage{}
	for _, e := range stored {
		replayed[e.Trajectory.EpisodeID] = replay(t, stock.Tools, e.Trajectory)
	}
	vouchers := 0
	for _, p := range problems {
		if p.Voucher != nil {
			vouchers++
		}
	}
	t.Logf("%d connections, %d messages by type %v; %d stored episodes %v, %d problems (%d voucher), %d clusters",
		upgrades, len(msgs), byType, len(stored), kinds, len(problems), vouchers, len(clusters))
	if byType[episode.TypeHello] == 0 || byType[episode.TypeEpisodeStart] == 0 || byType[episode.TypeObservation] == 0 {
		t.Fatalf("recording is trivial: messages by type %v", byType)
	}
	for _, e := range stored {
		if len(e.Trajectory.Steps) == 0 {
			continue
		}
		q, ok := starts[e.Trajectory.EpisodeID]
		if !ok {
			t.Errorf("stored %s episode %s (uid %d) was never seen starting on the wire", e.Kind, e.Trajectory.EpisodeID, e.Trajectory.MinerUID)
		} else if q != problems[e.Trajectory.ProblemID].Query {
			t.Errorf("episode %s: query on the wire differs from problem %s", e.Trajectory.EpisodeID, e.Trajectory.ProblemID)
		}
	}

	// The scan.
	rewards := map[string][]byte{}
	for id, p := range problems {
		b, err := json.Marshal(p.Reward)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) > 8 {
			rewards[id] = b
		}
	}
	for _, m := range msgs {
		where := fmt.Sprintf("%s to miner uid %d (episode %s)", m.typ, m.uid, m.episode)
		if loc := forbiddenKey.FindIndex(m.raw); loc != nil {
			t.Errorf("%s carries the key %s", where, m.raw[loc[0]:loc[1]])
		}
		if bytes.Contains(m.raw, []byte("price_after_voucher")) {
			t.Errorf("%s mentions price_after_voucher", where)
		}
		for c := range clusters {
			if bytes.Contains(m.raw, []byte(c)) {
				t.Errorf("%s carries cluster id %s", where, c)
			}
		}
		for id, r := range rewards {
			if bytes.Contains(m.raw, r) {
				t.Errorf("%s carries problem %s's reward %s", where, id, r)
			}
		}
		p, ok := problems[episodeProblem[m.episode]]
		if !ok || p.Voucher == nil {
			continue
		}
		body := scannable(t, m.typ, m.raw, replayed[m.episode])
		if at := numberOutsidePrice(body, p.Voucher.PriceAfterVoucher); at >= 0 {
			t.Errorf("%s carries problem %s's price_after_voucher %v: …%s…", where, p.ID, p.Voucher.PriceAfterVoucher,
				body[max(0, at-60):min(len(body), at+40)])
		}
	}
}

// replay re-executes each stored step's tool calls in a fresh session of
// the arena's own tools. The tools know the catalog and nothing of any
// problem, so an output the replay reproduces byte for byte is a function
// of (catalog, call) alone and cannot carry a problem's answer, however
// its numbers happen to fall. Steps cut short by a violation, which were
// not executed, replay as nil.
func replay(t *testing.T, tools *shop.Tools, tr episode.Trajectory) [][]json.RawMessage {
	t.Helper()
	sess := tools.NewSession()
	out := make([][]json.RawMessage, len(tr.Steps))
	for i, st := range tr.Steps {
		if len(st.Results) != len(st.ToolCalls) {
			continue
		}
		out[i] = make([]json.RawMessage, len(st.ToolCalls))
		for j, call := range st.ToolCalls {
			if res := sess.Execute(context.Background(), call.Name, call.Parameters); res.OK() {
				out[i][j] = json.RawMessage(res.Output)
			}
		}
	}
	return out
}

// scannable is the part of a message that could carry something specific
// to a problem beyond what the miner is meant to see: episode_start
// without its query (the voucher's rules are stated there on purpose) and
// without the tool schema and limits (checked elsewhere to be the same
// in every episode); an observation without the tool outputs the replay
// reproduced (errors and anything else stay in).
func scannable(t *testing.T, typ string, raw []byte, replayed [][]json.RawMessage) []byte {
	t.Helper()
	switch typ {
	case episode.TypeEpisodeStart:
		var es map[string]json.RawMessage
		if err := json.Unmarshal(raw, &es); err != nil {
			t.Fatal(err)
		}
		delete(es, "query")
		delete(es, "tools")
		delete(es, "limits")
		b, err := json.Marshal(es)
		if err != nil {
			t.Fatal(err)
		}
		return b
	case episode.TypeObservation:
		var ob episode.Observation
		if err := json.Unmarshal(raw, &ob); err != nil {
			t.Fatal(err)
		}
		if ob.Step < 0 || ob.Step >= len(replayed) || len(replayed[ob.Step]) != len(ob.Results) {
			t.Errorf("observation for step %d of episode %s has no stored, executed step to compare with", ob.Step, ob.EpisodeID)
			return raw
		}
		for i, r := range ob.Results {
			if want := replayed[ob.Step][i]; r.Error == nil && want != nil && bytes.Equal(r.Result, want) {
				ob.Results[i].Result = nil
			} else if r.Error == nil {
				t.Errorf("episode %s step %d call %d: the observation on the wire differs from replaying the call on the catalog", ob.EpisodeID, ob.Step, i)
			}
		}
		b, err := json.Marshal(ob)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	return raw
}

// numberOutsidePrice returns the offset of v, formatted as encoding/json
// formats a float64, as a whole JSON number in body, skipping occurrences
// that are the value of a catalog "price" field (a product may cost exactly
// the discounted basket); -1 if there is none.
func numberOutsidePrice(body []byte, v float64) int {
	needle := []byte(strconv.FormatFloat(v, 'f', -1, 64))
	// Word boundaries: "X45" or "p0045" or "1.45" are not the number 45.
	isNum := func(c byte) bool {
		return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '.' || c == '-' || c == '+' || c == '_'
	}
	for off := 0; ; {
		i := bytes.Index(body[off:], needle)
		if i < 0 {
			return -1
		}
		at := off + i
		off = at + len(needle)
		if at > 0 && isNum(body[at-1]) || off < len(body) && isNum(body[off]) {
			continue
		}
		if bytes.HasSuffix(bytes.TrimRight(body[:at], " "), []byte(`"price":`)) {
			continue
		}
		return at
	}
}

func TestNumberOutsidePrice(t *testing.T) {
	tests := []struct {
		body string
		v    float64
		want bool
	}{
		{`{"price":45}`, 45, false},
		{`{"price": 45.5}`, 45.5, false},
		{`{"x":45}`, 45, true},
		{`{"voucher":{"after":132.62}}`, 132.62, true},
		{`"Model X45 kit"`, 45, false},
		{`"p0045"`, 45, false},
		{`"cost 45.5"`, 45, false},
		{`"45 pieces"`, 45, true},
		{`{"price":45,"also":45}`, 45, true},
	}
	for _, tt := range tests {
		if got := numberOutsidePrice([]byte(tt.body), tt.v) >= 0; got != tt.want {
			t.Errorf("numberOutsidePrice(%s, %v) = %v, want %v", tt.body, tt.v, got, tt.want)
		}
	}
}
