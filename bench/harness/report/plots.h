// The experiment's PNG plots, drawn by gnuplot (a Debian package, installed
// by `make deps`) from the report's CSV files:
//
//   throughput.png   steps/s of each job over time, the timeline's actions
//                    marked with dashed lines
//   memory.png       each job's device memory (its allocator pool) stacked
//                    against the GPU's capacity, host fallback dashed
//   utilisation.png  the GPU engine's busy share over time
//
// The gnuplot scripts stay next to them (*.gp) so a plot can be restyled
// and redrawn by hand.
#ifndef MINITF_BENCH_HARNESS_REPORT_PLOTS_H_
#define MINITF_BENCH_HARNESS_REPORT_PLOTS_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "bench/harness/experiment/experiment.h"

namespace minitf::harness {

// Writes the scripts into `dir` (where WriteReport wrote the CSV files) and
// runs gnuplot on each. NotFound when gnuplot is not installed (the scripts
// are written anyway); Internal naming the script when gnuplot fails.
absl::Status WritePlots(const ExperimentResult& result, const std::string& dir);

// The names of the files WritePlots writes: each plot and its script.
std::vector<std::string> PlotFiles();

}  // namespace minitf::harness

#endif  // MINITF_BENCH_HARNESS_REPORT_PLOTS_H_
