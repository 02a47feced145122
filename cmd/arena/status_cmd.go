package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v3"

	"arena/internal/secretfile"
	"arena/suite"
	"arena/validator"
)

func newStatusCommand(env *cliEnv) *cli.Command {
	return &cli.Command{
		Name:      "status",
		Usage:     "show a running validator's phase, leader, qualifiers, last weights and suite health",
		UsageText: "arena [--config FILE] status [--api URL] [--json]",
		Description: "Reads the validator's read-only JSON API (GET /api/v1/status and /api/v1/leaderboard) and\n" +
			"prints it as a table. The API listens on api.listen (127.0.0.1:9101 by default), so with the\n" +
			"validator's --config (and ARENA_* environment) status finds it by itself; --api overrides that.\n" +
			"When api.token_file is set, its token is sent as the bearer token, to the API's own scheme,\n" +
			"host and port only; a redirect to any other is refused.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "api", Usage: "validator API base `URL` (default: http:// and api.listen)"},
			&cli.BoolFlag{Name: "json", Usage: "print the raw status document"},
			&cli.DurationFlag{Name: "timeout", Value: 5 * time.Second, Usage: "bound on each request"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			base, token, err := env.apiBase(cmd)
			if err != nil {
				return err
			}
			client, err := apiClient(base, token, cmd.Duration("timeout"))
			if err != nil {
				return err
			}
			var st validator.Status
			if err := getJSON(ctx, client, base+"/api/v1/status", &st); err != nil {
				return err
			}
			if cmd.Bool("json") {
				enc := json.NewEncoder(env.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(st)
			}
			var board []validator.LeaderboardRow
			if err := getJSON(ctx, client, base+"/api/v1/leaderboard", &board); err != nil {
				return err
			}
			printStatus(env.stdout, &st, board)
			fmt.Fprintf(env.stdout, "\nweb console: %s/\n", base)
			return nil
		},
	}
}

// apiBase is the validator API's base URL: --api when given, otherwise
// api.listen of the effective config, and the bearer token of
// api.token_file ("" when none). The config is loaded either way, so a
// --config that cannot be read is an error, not a silent default.
func (e *cliEnv) apiBase(cmd *cli.Command) (base, token string, err error) {
	cfg, _, err := e.load(cmd, nil)
	if err != nil {
		return "", "", err
	}
	if f := cfg.API.TokenFile; f != "" {
		if token, err = secretfile.ReadLine("api token file", f); err != nil {
			return "", "", err
		}
	}
	if cmd.IsSet("api") {
		base := strings.TrimRight(cmd.String("api"), "/")
		if !strings.HasPrefix(base, "http://") && !strings.HasPrefix(base, "https://") {
			return "", "", fmt.Errorf("--api %q: must be an http or https URL", base)
		}
		return base, token, nil
	}
	base, err = listenURL(cfg.API.Listen)
	return base, token, err
}

// apiClient reads the API at base. The bearer token goes only to base's
// own scheme, host and port, and a redirect to any other is refused: a
// server at --api (or one that took over the address) must not be able to
// forward the token elsewhere. Go's client would drop the header on a
// redirect to another domain, but not to another port of the same host or
// to a subdomain, and not at all when a transport adds it, as here.
func apiClient(base, token string, timeout time.Duration) (*http.Client, error) {
	u, err := url.Parse(base)
	if err != nil {
		return nil, fmt.Errorf("validator API %q: %w", base, err)
	}
	origin := originOf(u)
	c := &http.Client{Timeout: timeout, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		if originOf(req.URL) != origin {
			return &foreignRedirectError{to: req.URL.Redacted()}
		}
		return nil
	}}
	if token != "" {
		c.Transport = bearerTransport{token: token, origin: origin, next: http.DefaultTransport}
	}
	return c, nil
}

// foreignRedirectError is a redirect arena status does not follow.
type foreignRedirectError struct{ to string }

func (e *foreignRedirectError) Error() string {
	return "redirected to " + e.to + ", which is not the validator API's host; not followed (the API never redirects elsewhere)"
}

// originOf is a URL's scheme, host and port (the scheme's default when
// the URL names none), in lower case: the unit the token is bound to.
func originOf(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[strings.ToLower(u.Scheme)]
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(net.JoinHostPort(u.Hostname(), port))
}

// bearerTransport sends the API's bearer token with every request to the
// API's origin, and with no other.
type bearerTransport struct {
	token  string
	origin string
	next   http.RoundTripper
}

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if originOf(r.URL) != b.origin {
		return b.next.RoundTrip(r)
	}
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// listenURL turns a listen address into a URL to dial: a wildcard host
// (":9101", "0.0.0.0:9101") is reached on loopback.
func listenURL(listen string) (string, error) {
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return "", fmt.Errorf("api.listen %q: %w", listen, err)
	}
	if port == "0" {
		return "", fmt.Errorf("api.listen %q is a random port; pass --api with the address the validator logged", listen)
	}
	switch ip, err := netip.ParseAddr(host); {
	case host == "":
		host = "127.0.0.1"
	case err == nil && ip.IsUnspecified() && ip.Is6():
		host = "::1"
	case err == nil && ip.IsUnspecified():
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port), nil
}

// consoleURL is the web console's address for a listener's bound address
// (an unspecified host becomes loopback, as listenURL does).
func consoleURL(addr string) string {
	u, err := listenURL(addr)
	if err != nil {
		return "http://" + addr + "/"
	}
	return u + "/"
}

func getJSON(ctx context.Context, client *http.Client, url string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	var foreign *foreignRedirectError
	if errors.As(err, &foreign) {
		return fmt.Errorf("validator API %s: %w", url, foreign)
	}
	if err != nil {
		var uerr interface{ Unwrap() error }
		if errors.As(err, &uerr) {
			err = uerr.Unwrap()
		}
		return fmt.Errorf("validator API %s: %v (is `arena run` or `arena dev` running there?)", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return fmt.Errorf("validator API %s: %w", url, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("validator API %s: %s: %s", url, resp.Status, strings.TrimSpace(string(body)))
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("validator API %s: not the expected JSON: %w", url, err)
	}
	return nil
}

func printStatus(w io.Writer, st *validator.Status, board []validator.LeaderboardRow) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	ready := "yes"
	if !st.Ready {
		ready = "no"
		if len(st.NotReady) > 0 {
			ready += ": " + strings.Join(st.NotReady, "; ")
		}
	}
	fmt.Fprintf(tw, "validator\t%s (uid %d, netuid %d)\n", st.Validator, st.UID, st.Netuid)
	fmt.Fprintf(tw, "ready\t%s\n", ready)
	fmt.Fprintf(tw, "head\tblock %d, %.1fs ago\n", st.HeadBlock, st.HeadAge)
	phase := st.Phase
	if st.CurrentRace != 0 {
		phase += fmt.Sprintf(" (race %d)", st.CurrentRace)
	}
	fmt.Fprintf(tw, "phase\t%s\n", phase)
	fmt.Fprintf(tw, "races\t%d completed\n", st.Races)
	if st.Leader != nil {
		fmt.Fprintf(tw, "leader\tuid %d since block %d (qualifying %.3f)\n", st.Leader.UID, st.Leader.Since, st.Leader.Qualifying)
	} else {
		fmt.Fprintf(tw, "leader\tnone yet\n")
	}
	quals := make([]string, len(st.Qualifiers))
	for i, q := range st.Qualifiers {
		quals[i] = fmt.Sprintf("uid %d (%.3f)", q.UID, q.Score)
	}
	if len(quals) == 0 {
		quals = []string{"none"}
	}
	fmt.Fprintf(tw, "qualifiers\t%s at bar %.3f\n", strings.Join(quals, ", "), st.Bar)
	if lw := st.LastWeights; lw != nil {
		tx := lw.TxHash
		if lw.RevealTxHash != "" {
			tx = lw.RevealTxHash
		}
		switch {
		case lw.Status == "pending":
			fmt.Fprintf(tw, "last weights\twindow %d: %s sent at block %d, awaiting the receipt\n", lw.Window, lw.Op, lw.CreatedBlock)
		case lw.Status == "failed":
			fmt.Fprintf(tw, "last weights\twindow %d: %s failed: %s\n", lw.Window, lw.Op, lw.Error)
		case lw.Status == "committed":
			fmt.Fprintf(tw, "last weights\twindow %d: committed in block %d (tx %s), reveal at epoch %d\n", lw.Window, lw.Block, tx, lw.RevealEpoch)
		default: // set or revealed
			fmt.Fprintf(tw, "last weights\twindow %d: %s in block %d, tx %s\n", lw.Window, lw.Status, max(lw.Block, lw.RevealBlock), tx)
		}
	} else {
		fmt.Fprintf(tw, "last weights\tnone yet\n")
	}
	var pool []string
	for _, p := range []string{"public", "hidden", "retired", "compromised"} {
		for part, ps := range st.Suite.Partitions {
			if string(part) == p {
				pool = append(pool, fmt.Sprintf("%s %d", p, ps.Clusters))
			}
		}
	}
	fmt.Fprintf(tw, "suite clusters\t%s; hidden pool covers %d more race(s)\n", strings.Join(pool, ", "), st.Suite.RacesCovered)
	if c := st.Suite.Capacity; c != nil {
		fmt.Fprintf(tw, "suite capacity\t%s\n", capacityLine(c))
	}
	fmt.Fprintf(tw, "hidden used\t%d cluster(s) in the last 24 h\n", st.HiddenClustersUsed24h)
	if e := st.Epochs; e != nil {
		next, _ := e.NextEpoch()
		fmt.Fprintf(tw, "epochs\tindex %d, tempo %d, next at block %d (read at block %d)\n", e.EpochIndex, e.Tempo, next, e.Block)
	}
	if sn := st.Subnet; sn != nil {
		note := ""
		if sn.Mechanisms > 1 {
			note = " (weights reach mechanism 0 only)"
		}
		fmt.Fprintf(tw, "subnet\t%d mechanism(s)%s; miner emission withheld last epoch %.1f%%\n", sn.Mechanisms, note, 100*sn.MinerBurned)
	}
	_ = tw.Flush()

	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "UID\tQUALIFYING\tLAST RACE\tNOTE")
	for _, r := range board {
		note := r.Skipped
		if r.Leader {
			note = "leader"
		}
		qualifying, lastRace := r.ScoreCells()
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\n", r.UID, qualifying, lastRace, note)
	}
	_ = tw.Flush()
}

// capacityLine says how long the hidden pool lasts and whether restocks
// keep it from running dry.
func capacityLine(c *suite.Capacity) string {
	days := fmt.Sprintf("%.1f", c.Days)
	if c.Days < 1 {
		days = fmt.Sprintf("%.2g", c.Days) // a devnet's fast blocks
	}
	s := fmt.Sprintf("%s days of races (%d unused products at %.2f targets a problem, %.0f problems a day)",
		days, c.UnusedProducts, c.TargetsPerProblem, c.ProblemsPerDay)
	switch {
	case c.RestockCoverage >= 1:
		s += fmt.Sprintf("; restocks add %.2f× what races use, so it never runs dry", c.RestockCoverage)
	case c.RestockCoverage > 0:
		s += fmt.Sprintf("; restocks add only %.2f× what races use", c.RestockCoverage)
	default:
		s += "; the catalog never restocks"
	}
	if c.RunsDryWithin(validator.CapacityWarnDays) {
		s += fmt.Sprintf(" — RUNS DRY WITHIN %d DAYS", validator.CapacityWarnDays)
	}
	return s
}
