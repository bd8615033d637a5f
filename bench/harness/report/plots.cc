#include "bench/harness/report/plots.h"

#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "fmt/format.h"
#include "platform/file.h"
#include "platform/status_macros.h"

extern char** environ;

namespace minitf::harness {
namespace {

constexpr char kTerminal[] = "set terminal pngcairo size 1000,420 font ',10'\n";

// Each plot is "<name>.png", drawn by the script "<name>.gp".
constexpr const char* kPlots[] = {"throughput", "memory", "utilisation"};

// `text` as a gnuplot single-quoted string.
std::string GnuplotString(const std::string& text) {
  return absl::StrCat("'", absl::StrReplaceAll(text, {{"'", "''"}}), "'");
}

std::string Preamble(const std::string& dir, const std::string& plot, const std::string& title) {
  return absl::StrCat(kTerminal, "set output ", GnuplotString(absl::StrCat(dir, "/", plot, ".png")),
                      "\n",
                      "set datafile separator ','\n", "set key outside right top\n",
                      "set grid\n", "set title ", GnuplotString(title), " noenhanced\n",
                      "set xlabel 'time (s)'\n");
}

std::string ThroughputScript(const ExperimentResult& result, const std::string& dir) {
  std::string gp = Preamble(dir, "throughput",
                            absl::StrCat(result.scenario.name, ": throughput per job"));
  gp += "set ylabel 'steps/s'\nset yrange [0:*]\n";
  for (const PerformedAction& p : result.actions) {
    std::string what = p.action.job;
    if (p.action.max_device_mem) {
      const int64_t mib = *p.action.max_device_mem >> 20;
      absl::StrAppend(&what, mib >= 1024 && mib % 1024 == 0 ? fmt::format(" mem {}GiB", mib / 1024)
                                                           : fmt::format(" mem {}MiB", mib));
    }
    if (p.action.perf_control) absl::StrAppend(&what, " perf ", *p.action.perf_control);
    gp += fmt::format("set arrow from {0:.3f}, graph 0 to {0:.3f}, graph 1 nohead dt 2 lc 'gray40'\n",
                      p.time_s);
    gp += fmt::format("set label {} at {:.3f}, graph 0.98 rotate by 90 right font ',8' noenhanced\n",
                      GnuplotString(what), p.time_s);
  }
  gp += absl::StrCat("plot for [i=2:", result.jobs.size() + 1, "] ",
                     GnuplotString(dir + "/throughput.csv"),
                     " using 1:i with linespoints pt 7 ps 0.4 lw 2 title columnheader(i) noenhanced\n");
  return gp;
}

std::string MemoryScript(const ExperimentResult& result, const std::string& dir) {
  std::string gp = Preamble(dir, "memory",
                            absl::StrCat(result.scenario.name, ": device memory by job"));
  gp += "set ylabel 'GiB'\nset yrange [0:*]\nset style fill transparent solid 0.5\n";
  const std::string data = GnuplotString(dir + "/device_timeline.csv");
  // device_timeline.csv: time, utilisation, then per job device, pool, host.
  auto pool = [](size_t j) { return 4 + 3 * j; };
  auto host = [](size_t j) { return 5 + 3 * j; };
  std::vector<std::string> plots;
  // Stacked: job j's curve is the sum of the pools of jobs 0..j, drawn from
  // the top down so each band shows.
  for (size_t j = result.jobs.size(); j-- > 0;) {
    std::string sum;
    for (size_t k = 0; k <= j; ++k) absl::StrAppend(&sum, k > 0 ? "+" : "", "$", pool(k));
    plots.push_back(absl::StrCat(data, " every ::1 using 1:((", sum,
                                 ")/1073741824.0) with filledcurves x1 title ",
                                 GnuplotString(result.jobs[j].spec.name + " (device)")));
  }
  for (size_t j = 0; j < result.jobs.size(); ++j) {
    plots.push_back(absl::StrCat(data, " every ::1 using 1:($", host(j),
                                 "/1073741824.0) with lines dt 2 lw 2 title ",
                                 GnuplotString(result.jobs[j].spec.name + " (host fallback)")));
  }
  plots.push_back(fmt::format("{:.6f} with lines lw 2 lc 'black' title 'capacity'",
                              result.capacity_bytes / 1073741824.0));
  gp += "plot ";
  for (size_t i = 0; i < plots.size(); ++i) gp += (i > 0 ? ", \\\n     " : "") + plots[i];
  gp += "\n";
  return gp;
}

std::string UtilisationScript(const ExperimentResult& result, const std::string& dir) {
  std::string gp = Preamble(dir, "utilisation",
                            absl::StrCat(result.scenario.name, ": GPU engine busy"));
  gp += "set ylabel 'busy %'\nset yrange [0:105]\n";
  gp += absl::StrCat("plot ", GnuplotString(dir + "/device_timeline.csv"),
                     " every ::1 using 1:($2*100) with lines lw 1 title 'utilisation'\n");
  return gp;
}

absl::Status RunGnuplot(const std::string& script) {
  std::vector<std::string> args = {"gnuplot", script};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int error = posix_spawnp(&pid, "gnuplot", nullptr, nullptr, argv.data(), environ);
  if (error != 0) {
    if (error == ENOENT) {
      return absl::NotFoundError(absl::StrCat(
          "gnuplot is not installed (Debian package gnuplot-nox; `make deps` installs it): ",
          "plots not drawn; their scripts are in the output directory"));
    }
    return absl::InternalError(
        absl::StrCat("cannot run gnuplot on '", script, "': ", std::strerror(error)));
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      return absl::InternalError(absl::StrCat("waiting for gnuplot on '", script,
                                              "': ", std::strerror(errno)));
    }
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return absl::InternalError(absl::StrCat("gnuplot failed on '", script, "' (status ",
                                            status, ")"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status WritePlots(const ExperimentResult& result, const std::string& out_dir) {
  std::error_code error;
  const std::string dir = std::filesystem::absolute(out_dir, error).string();
  if (error) {
    return absl::InvalidArgumentError(absl::StrCat("bad output directory '", out_dir, "'"));
  }
  const std::string texts[] = {ThroughputScript(result, dir), MemoryScript(result, dir),
                               UtilisationScript(result, dir)};
  static_assert(std::size(kPlots) == std::size(texts));
  for (size_t i = 0; i < std::size(kPlots); ++i) {
    MINITF_RETURN_IF_ERROR(WriteFileAtomically(absl::StrCat(dir, "/", kPlots[i], ".gp"), texts[i]));
  }
  for (const char* plot : kPlots) {
    MINITF_RETURN_IF_ERROR(RunGnuplot(absl::StrCat(dir, "/", plot, ".gp")));
  }
  return absl::OkStatus();
}

std::vector<std::string> PlotFiles() {
  std::vector<std::string> files;
  for (const char* plot : kPlots) {
    files.push_back(absl::StrCat(plot, ".png"));
    files.push_back(absl::StrCat(plot, ".gp"));
  }
  return files;
}

}  // namespace minitf::harness
