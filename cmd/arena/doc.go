// Command arena is the validator daemon and toolbox of the arena subnet.
// main only parses flags and wires constructors together; every piece of
// behaviour lives in a package of its own (arena shop python, for one,
// only hands its code to shop/pyexec and prints what comes back).
package main
