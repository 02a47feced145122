// Package race decides who leads the subnet: which miners qualify to
// challenge, whether the evidence shows a challenger better than the
// incumbent, and in which order the racers rank for the weights policy.
//
// Why it is a pure state machine: every validator must reach the same leader
// from the same results (Yuma consensus rewards agreement), and the decision
// must survive restarts. So Step takes the persisted State, the race just run
// (a Heat: every racer's score on every hidden problem) and the earlier heats
// of the evidence window, and returns the outcome and the next State; it does
// no I/O, reads no clock and keeps no globals. Inputs are sorted internally,
// so the order in which results arrive does not change the outcome, and the
// validator re-reads the heats from its store after a restart.
//
// Rules (docs/scoring.md, "Races: who leads", has the maths and the measured
// error rates):
//
//   - A miner qualifies when its qualifying score is at least Floor and the
//     score's Wilson upper confidence bound reaches the bar
//     max(Floor, leader_qualifying × ratio(t)), ratio falling linearly from
//     RatioStart to RatioFloor over DecayBlocks of reign.
//   - Two miners are compared paired by problem on every heat of the window
//     both ran; "A beats B by more than s" is shown when the one-sided
//     normal-mixture e-value of the differences reaches 1/(1 − Confidence),
//     a test whose error rate holds however often it is looked at.
//   - With an incumbent, a challenger takes the crown only when shown to
//     beat it by more than Margin; the strongest such evidence wins.
//   - With no incumbent, a racer is crowned only when shown to be the best:
//     better than every lower-uid racer by more than Margin, and no worse
//     than every higher-uid racer by more than TieMargin (which is not shown
//     to beat it). Until then the outcome is Undecided.
//   - An incumbent that did not serve scores 0 on every problem; one whose
//     uid now belongs to another hotkey was deregistered: the crown is vacant.
//
// When races happen (every race_every_blocks, and only with a qualified
// challenger) is the caller's decision: a Step with no race only computes
// the bar and the qualifiers.
package race
