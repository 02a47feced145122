// Package simulate is a Monte Carlo of independent validators racing the
// same miners, each on its own hidden problems, to measure how often they
// crown the truly best miner and how often they agree (arena simulate).
//
// Why it exists: every arena validator races on problems nobody else sees,
// and Yuma consensus pays validators whose weights agree with the stake
// majority. Whether a race rule lets independent validators agree is a
// question of chance, so it is answered by simulation, with seeds that
// replay.
//
// The simulation runs the validator's own decision code: race.Params.Step
// for qualifying bars, heats and crowns, weights.Policy and the SDK-exact
// weight conversion for each validator's weights, and the devnet's Yuma
// for the incentive the best miner would receive. Only the miners are
// modelled: each has a true success rate per problem type, and problems
// share a difficulty, so that two miners' results on one problem are
// correlated as they are on real problems.
package simulate
