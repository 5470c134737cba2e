package crashtest

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/graft-project/graft/txn"
)

// cellWidth bounds a table cell; failures are printed whole below the
// table, and --json carries every row whole.
const cellWidth = 96

// WriteTable prints the report for people: a header, the table (a run of
// passing rows of one family folded into one line), the counts, every
// failing row in full, and the last line Summary.
func (r *Report) WriteTable(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "graft crash suite: binary %s, seed %d\n\n", r.Bin, r.Seed)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CASE\tINJECTION\tEXPECTED\tOBSERVED\tRESULT")
	for _, row := range fold(r.Rows) {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", row.Case, cell(row.Injection), cell(row.Expected), cell(row.Observed), row.Result)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	c := r.Counts
	fmt.Fprintf(&b, "\n%d cases: crash points %d/%d, random kills %d (seed %d), power-loss states %d, recovery power-loss states %d, EIO ops %d, torn writes %d, torn offsets %d (%s), race rounds %d; %d skipped; %s\n",
		c.Cases, c.CrashPoints, len(txn.Points)+len(txn.ExportPoints), c.RandomKills, r.Seed, c.PowerLossStates, c.RecoveryPowerLossStates, c.EIOOps, c.TornWrites, c.TornOffsets, r.strideText(), c.RaceRounds, c.Skipped, r.Elapsed)
	for _, row := range r.Rows {
		if row.Result == Skip {
			fmt.Fprintf(&b, "skipped %s: %s\n", row.Case, row.Observed)
		}
	}
	for _, row := range r.Rows {
		if row.Result == Fail {
			fmt.Fprintf(&b, "\nFAIL %s\n  injection: %s\n  expected:  %s\n  observed:  %s\n", row.Case, row.Injection, row.Expected, row.Observed)
		}
	}
	if uncovered := r.Uncovered(); len(uncovered) > 0 && r.Counts.CrashPoints > 0 {
		fmt.Fprintf(&b, "\ncrash points without a case: %v\n", uncovered)
	}
	fmt.Fprintf(&b, "\n%s\n", r.Summary())
	_, err := io.WriteString(w, b.String())
	return err
}

// strideText says which offsets of the sampled journal records were cut.
func (r *Report) strideText() string {
	if r.TornRecordStride <= 1 {
		return "PREPARING and COLD_VERIFIED records at every offset"
	}
	return fmt.Sprintf("PREPARING and COLD_VERIFIED records at one offset in %d and their end; --soak cuts every offset", r.TornRecordStride)
}

func cell(s string) string { return clip(strings.ReplaceAll(s, "\t", " "), cellWidth) }

// clip shortens s to n runes, marking the cut.
func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// fold replaces each run of two or more passing rows of one family by a
// line that counts them.
func fold(rows []Row) []Row {
	var out []Row
	for k := 0; k < len(rows); {
		row := rows[k]
		end := k + 1
		if row.Family != "" && row.Result == Pass {
			for end < len(rows) && rows[end].Family == row.Family && rows[end].Result == Pass {
				end++
			}
		}
		if n := end - k; n > 1 {
			last := rows[end-1]
			out = append(out, Row{
				Case:      fmt.Sprintf("%s ×%d", row.Family, n),
				Injection: clip(row.Injection, cellWidth/2-1) + " … " + clip(last.Injection, cellWidth/2-1),
				Expected:  row.Expected,
				Observed:  fmt.Sprintf("all %d held (%s … %s)", n, row.Case, last.Case),
				Result:    Pass,
			})
		} else {
			out = append(out, row)
		}
		k = end
	}
	return out
}
