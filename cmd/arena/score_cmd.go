package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/urfave/cli/v3"

	"arena/episode"
	"arena/scoring"
	"arena/shop"
	"arena/suite"
)

func newScoreCommand(env *cliEnv) *cli.Command {
	return &cli.Command{
		Name:  "score",
		Usage: "score an answer to a problem with the rule metrics (offline self-check)",
		UsageText: "arena score --problem FILE --products FILE [--trajectory FILE] [--title-threshold T]\n" +
			"arena score --problem FILE --products FILE --embeddings-url URL --embeddings-model MODEL",
		Description: "Scores recommended products against a problem's ground truth exactly as the validator\n" +
			"does and prints every rule metric as JSON: gt, rule, shop, budget, format, length, success\n" +
			"(ASR), the per-item breakdown and the reasons for any zero.\n\n" +
			"--problem is one problem in ShoppingBench format (one JSON object: query, reward and,\n" +
			"for voucher tasks, voucher). --products is a JSON array of the recommended product\n" +
			"documents, in the order they were recommended. --trajectory, a recorded episode\n" +
			"trajectory, adds format and length and checks grounding: an answer naming an id no tool\n" +
			"returned in that trajectory scores 0. Without it format and length are 0 and\n" +
			"has_trajectory is false. See docs/scoring.md.\n\n" +
			"Example:\n" +
			"  arena score --problem problem.json --products answer.json --trajectory episode.json",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "problem", Usage: "problem `FILE` (one ShoppingBench JSON object)", Required: true, TakesFile: true},
			&cli.StringFlag{Name: "products", Usage: "`FILE` with a JSON array of the recommended product documents, in order", Required: true, TakesFile: true},
			&cli.StringFlag{Name: "trajectory", Usage: "recorded trajectory `FILE` (JSON) for format, length and grounding", TakesFile: true},
			&cli.Float64Flag{Name: "title-threshold", Usage: "lexical title similarity threshold `T` in (0, 1]", Value: scoring.DefaultLexicalThreshold},
			&cli.StringFlag{Name: "embeddings-url", Usage: "match titles by embedding cosine (≥ 0.7) via the OpenAI-compatible API at `URL` (for example http://localhost:8000/v1) instead of lexically"},
			&cli.StringFlag{Name: "embeddings-model", Usage: "embedding `MODEL` for --embeddings-url"},
			&cli.StringFlag{Name: "embeddings-key-env", Usage: "environment `VAR` holding the API key for --embeddings-url", Value: "ARENA_EMBEDDINGS_API_KEY"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			var titles scoring.TitleMatcher = scoring.Lexical{Threshold: cmd.Float64("title-threshold")}
			if th := cmd.Float64("title-threshold"); !(th > 0 && th <= 1) {
				return fmt.Errorf("score: --title-threshold %v: want a number in (0, 1]", th)
			}
			if url := cmd.String("embeddings-url"); url != "" {
				e, err := scoring.NewEmbeddings(scoring.EmbeddingsConfig{BaseURL: url, Model: cmd.String("embeddings-model"),
					APIKey: lookupEnv(env.environ, cmd.String("embeddings-key-env")), MaxRetries: 2})
				if err != nil {
					return fmt.Errorf("score: %w", err)
				}
				titles = e
			}
			return runScore(ctx, env, cmd.String("problem"), cmd.String("products"), cmd.String("trajectory"), titles)
		},
	}
}

// lookupEnv finds name in environ (KEY=value lines); "" if absent.
func lookupEnv(environ []string, name string) string {
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok && k == name {
			return v
		}
	}
	return ""
}

func runScore(ctx context.Context, env *cliEnv, problemPath, productsPath, trajectoryPath string, titles scoring.TitleMatcher) error {
	problem, err := readScoreProblem(problemPath)
	if err != nil {
		return err
	}
	answers, err := readScoreProducts(productsPath)
	if err != nil {
		return err
	}
	in := scoring.Input{Problem: &problem, Answers: answers}
	if trajectoryPath != "" {
		raw, err := os.ReadFile(trajectoryPath)
		if err != nil {
			return fmt.Errorf("score: trajectory: %w", err)
		}
		var tr episode.Trajectory
		if err := json.Unmarshal(raw, &tr); err != nil {
			return fmt.Errorf("score: trajectory %s: %w", trajectoryPath, err)
		}
		ids := make([]string, len(answers))
		for i, a := range answers {
			ids[i] = a.ID
		}
		if len(tr.Recommended) > 0 && !slices.Equal(tr.Recommended, ids) {
			return fmt.Errorf("score: the products %v are not the trajectory's recommendation %v", ids, tr.Recommended)
		}
		in.Trajectory = &tr
		in.Observed = scoring.ObservedIDs(&tr)
	}
	m, err := scoring.Rules(ctx, in, scoring.Options{Titles: titles})
	if err != nil {
		return fmt.Errorf("score: %w", err)
	}
	out, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("score: %w", err)
	}
	_, err = fmt.Fprintf(env.stdout, "%s\n", out)
	return err
}

// readScoreProblem reads one ShoppingBench problem object (it may span
// lines) through the ShoppingBench importer, so the type is inferred the
// same way: voucher if it has one, shop if the reward is a list, else
// product.
func readScoreProblem(path string) (suite.Problem, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return suite.Problem{}, fmt.Errorf("score: problem: %w", err)
	}
	var line bytes.Buffer
	if err := json.Compact(&line, raw); err != nil {
		return suite.Problem{}, fmt.Errorf("score: problem %s is not one JSON object: %w", path, err)
	}
	if !bytes.HasPrefix(line.Bytes(), []byte("{")) {
		return suite.Problem{}, fmt.Errorf("score: problem %s is not a JSON object", path)
	}
	problems, rep, err := suite.ImportShoppingBench(&line, path)
	if err != nil {
		return suite.Problem{}, fmt.Errorf("score: problem: %w", err)
	}
	if len(problems) != 1 {
		return suite.Problem{}, fmt.Errorf("score: problem %s: not a usable ShoppingBench problem: %+v", path, rep)
	}
	return problems[0], nil
}

// readScoreProducts reads a JSON array of product documents.
func readScoreProducts(path string) ([]scoring.Answer, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("score: products: %w", err)
	}
	var docs []json.RawMessage
	if err := json.Unmarshal(raw, &docs); err != nil {
		return nil, fmt.Errorf("score: products %s is not a JSON array of product documents: %w", path, err)
	}
	answers := make([]scoring.Answer, len(docs))
	var errs []error
	for i, d := range docs {
		p := new(shop.Product)
		if err := p.UnmarshalJSON(d); err != nil {
			errs = append(errs, fmt.Errorf("product %d: %w", i+1, err))
			continue
		}
		if err := p.Validate(); err != nil {
			errs = append(errs, fmt.Errorf("product %d: %w", i+1, err))
			continue
		}
		answers[i] = scoring.Answer{ID: p.ProductID, Product: p}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("score: products %s: %w", path, err)
	}
	return answers, nil
}
