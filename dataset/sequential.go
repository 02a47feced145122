package dataset

import (
	"context"

	"github.com/dgraph-io/badger/v4"

	"arena/validator/records"
)

// The sequential read pass is the export as it was before the pipeline:
// records.ForEachEpisode decodes each episode on the calling goroutine,
// and rows are encoded by the sinks. It is kept as the reference the
// pipeline's output is tested against (Options.Workers < 0 selects it).

func (x *exporter) sequential() bool { return x.o.Workers < 0 }

// singleSequential is single without the pipeline.
func (x *exporter) singleSequential(ctx context.Context) error {
	return x.o.Store.View(func(txn *badger.Txn) error {
		if err := x.loadLiveRaces(txn); err != nil {
			return err
		}
		return x.o.Records.ForEachEpisode(txn, func(e *records.Episode, v *records.Verdict) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			x.rep.EpisodesRead++
			x.prog.tick("reading", x.rep.EpisodesRead, x.rowsWritten())
			reason := x.scope(e, v)
			if reason == "" {
				reason = x.quality(e, v)
			}
			var msgs []Message
			var size rowSize
			if reason == "" && x.o.Format == FormatSFT {
				msgs, size = x.fit(append(promptMessages(e.Trajectory.Query), completion(&e.Trajectory, x.o.Think, x.o.Style)...))
				if size.drop {
					reason = DropTooLong
				}
			}
			if (reason == "" || reason == DropTooLong) && x.seenBefore(contentHash(&e.Trajectory)) {
				reason = DropDuplicate
			}
			if reason == "" || reason == DropTooLong {
				x.rep.Lengths.note(size)
			}
			if reason != "" {
				x.rep.Dropped[reason]++
				return nil
			}
			cluster, err := x.clusterOf(e)
			if err != nil {
				return err
			}
			split, err := x.splitOf(cluster)
			if err != nil {
				return err
			}
			x.used(e, v, cluster, split)
			tr := &e.Trajectory
			if err := checkText(tr, x.o.Format == FormatCompletions); err != nil {
				return err
			}
			typ := string(e.ProblemType)
			vf := verificationOf(tr, v)
			switch x.o.Format {
			case FormatSFT:
				row := &SFTRow{Messages: msgs, Tools: x.tools, Meta: x.meta(e, v, cluster, split, vf.all)}
				return x.write(split, typ, row)
			case FormatCompletions:
				return completionRows(tr, vf, x.stepMeta(e, v, cluster, split, vf), func(row *CompletionRow) error {
					return x.write(split, typ, row)
				})
			}
			instruction := stepsInstruction(x.tools)
			meta := x.stepMeta(e, v, cluster, split, vf)
			return stepSamples(tr, x.o.Think, func(step int, input, output string) error {
				return x.write(split, typ, &StepsRow{Instruction: instruction, Input: input, Output: output, Meta: meta(step)})
			})
		})
	})
}

// groupSequential is grouped's first pass without the pipeline.
func (x *exporter) groupSequential(ctx context.Context, groups map[string][]member) error {
	return x.o.Store.View(func(txn *badger.Txn) error {
		if err := x.loadLiveRaces(txn); err != nil {
			return err
		}
		return x.o.Records.ForEachEpisode(txn, func(e *records.Episode, v *records.Verdict) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			x.rep.EpisodesRead++
			x.prog.tick("grouping", x.rep.EpisodesRead, 0)
			reason := x.scope(e, v)
			if reason == "" && x.seenBefore(contentHash(&e.Trajectory)) {
				reason = DropDuplicate
			}
			if reason != "" {
				x.rep.Dropped[reason]++
				return nil
			}
			pid := e.Trajectory.ProblemID
			groups[pid] = append(groups[pid], member{id: e.Trajectory.EpisodeID, final: v.Final, pass: x.quality(e, v) == ""})
			return nil
		})
	})
}
