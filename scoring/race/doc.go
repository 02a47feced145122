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
//   - Two miners are compared paired by problem on the heats both ran since
//     EvidenceFrom (the start of the previous evidence epoch of WindowBlocks).
//     "A beats B by more than s" is a mixture of bets on the differences, an
//     e-value valid for any scores in [0, 1] however often it is looked at;
//     the j-th epoch of a comparison spends spendShare(j) of 1 − Confidence.
//   - With an incumbent, the crown moves only when the challengers' merged
//     evidence Σ spendShare(j_c)/K · E_c reaches 1/(1 − Confidence). It goes
//     to the earliest-registered racer of the group the single test shows to
//     beat the incumbent (copies lead as one), or is handed to an
//     earlier-registered copy of the leader shown to beat the leader's
//     reference.
//   - With no incumbent, a racer that nobody dominates (is shown to beat at
//     the threshold for racers − 1 tests) and that dominates someone is
//     crowned, the earliest registered of its group first; when nobody
//     dominates anybody, the earliest registered is crowned once shown no
//     worse than each other racer by more than TieMargin. Until then the
//     outcome is Undecided.
//   - Registration order is the chain's registration block, then uid: what
//     every validator reads the same way.
//   - An incumbent that did not serve scores 0 on every problem; one whose
//     uid now belongs to another hotkey was deregistered: the crown is vacant.
//
// When races happen (every race_every_blocks, and only with a qualified
// challenger) is the caller's decision: a Step with no race only computes
// the bar and the qualifiers.
package race
