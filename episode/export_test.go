package episode

// The in-package test helpers, for the tests in package episode_test: those
// use episodetest, which imports this package, so they cannot be in-package
// tests themselves.
var (
	CatalogTools  = catalogTools
	NewSigner     = newSigner
	StartServer   = startServer
	ScriptedAgent = scriptedAgent
	NewTestRunner = newTestRunner
	LimitsForTest = testLimits
	Normalized    = normalized
)
