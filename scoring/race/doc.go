// Package race decides who leads the subnet: which miners qualify to
// challenge, whether a challenger dethrones the incumbent, and in which order
// the racers rank for the weights policy.
//
// Why it is a pure state machine: every validator must reach the same leader
// from the same results (Yuma consensus rewards agreement), and the decision
// must survive restarts. So Step takes the persisted State, this window's
// results and the block, and returns the outcome and the next State; it does
// no I/O, reads no clock and keeps no globals. The validator persists the
// returned State (a plain JSON value) atomically with the race results.
// Inputs are sorted internally, so the order in which results arrive does not
// change the outcome.
//
// Rules (DESIGN.md, "Race"):
//
//   - The bar to qualify is max(Floor, leader_qualifying × ratio(t)), where t
//     is the number of blocks since the leader took the crown and ratio falls
//     linearly from RatioStart at t = 0 to RatioFloor at t = DecayBlocks and
//     stays there: ratio(t) = RatioStart − (RatioStart − RatioFloor)·min(t, D)/D
//     (DecayBlocks = 0 means RatioFloor at once). A long reign therefore gets
//     easier to challenge, but never below Floor. With no leader the bar is
//     Floor.
//   - The incumbent does not need to qualify; it races by right.
//   - A challenger dethrones the incumbent only if its race score exceeds the
//     incumbent's by more than Margin; at exactly Margin, or on a tie, the
//     incumbent keeps the crown. Among challengers, ties go to the earlier
//     qualifier (lower qualified-at block), then to the lower uid.
//   - With no incumbent, the best racer is crowned without a margin.
//   - An incumbent with no race result (it did not serve) scores 0.
//
// When races happen (every race_every_blocks) is the caller's decision: a
// Step with no race results only computes the bar and the qualifiers.
package race
