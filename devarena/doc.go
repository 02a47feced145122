// Package devarena composes a whole arena in one process for `arena dev`
// and the end-to-end tests: the devnet with a subnet, reference miners of
// spread skill serving on loopback and announcing their axons on chain, and
// a validator stack on fast timings.
//
// It sits beside the packages it composes (the package map has no place
// for a composition of devnet, miner and validator: validator must not
// import miner, and cmd/arena must hold no logic).
package devarena
