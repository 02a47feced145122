// Package web is the validator's web console: an overview, the
// leaderboard, the race history, each race with the statistics that
// decided it, a trajectory viewer and a page per miner, rendered on the
// server with html/template and plotted as inline SVG (package web/plot),
// with no script at all.
//
// A Console serves two handlers. Operator (mounted on api.listen beside
// the JSON API, behind its token) shows everything the validator keeps.
// Public (web.public_listen) shows the same pages minus what only the
// operator may see — miners' endpoints and skip reasons, readiness
// details, live races, unexposed problems — with per-IP rate limits, a
// strict Content-Security-Policy and caching. Every page has a JSON twin:
// the same path with ?format=json returns the data the page was rendered
// from.
//
// Pages read the store through its indexes: a page of races, one race,
// one episode, one miner. What would need a scan is kept by the console
// and refreshed in the background by Run: a digest of every race (decided
// races never change, so each is read once) and the suite's statistics.
package web
