#include "bench/harness/jobs/op_profile.h"

#include <algorithm>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace minitf::harness {
namespace {

// "/job:localhost/replica:0/task:0/device:GPU:0" -> "GPU:0".
std::string ShortDevice(const std::string& name) {
  const size_t at = name.rfind("device:");
  return at == std::string::npos ? name : name.substr(at + 7);
}

}  // namespace

void OpProfile::AddStep(const StepStats& stats, double step_seconds) {
  ++steps_;
  step_seconds_ += step_seconds;
  for (const DeviceStepStats& device : stats.dev_stats) {
    const std::string short_name = ShortDevice(device.device);
    absl::flat_hash_map<std::string, size_t>& rows_of_device = row_of_[short_name];
    for (const NodeExecStats& node : device.node_stats) {
      const double seconds =
          1e-6 * static_cast<double>(std::max<int64_t>(
                     node.op_end_rel_micros - node.op_start_rel_micros, 0));
      const auto [it, added] = rows_of_device.try_emplace(node.op, rows_.size());
      if (added) rows_.push_back({node.op, short_name, 0, 0});
      OpTypeTime& row = rows_[it->second];
      ++row.executions;
      row.seconds += seconds;
      node_seconds_ += seconds;
    }
  }
}

std::vector<OpTypeTime> OpProfile::ByTime() const {
  std::vector<OpTypeTime> rows = rows_;
  std::sort(rows.begin(), rows.end(), [](const OpTypeTime& a, const OpTypeTime& b) {
    return std::tie(b.seconds, a.op, a.device) < std::tie(a.seconds, b.op, b.device);
  });
  return rows;
}

std::string FormatOpProfile(const OpProfile& profile, int max_rows) {
  const int steps = std::max(profile.steps(), 1);
  const double total = profile.node_seconds();
  std::string out = absl::StrFormat(
      "profile of %d step%s: %.3f ms of op time per step in %.3f ms of wall time per step\n",
      profile.steps(), profile.steps() == 1 ? "" : "s", 1e3 * total / steps,
      1e3 * profile.step_seconds() / steps);
  absl::StrAppendFormat(&out, "%-28s %-7s %9s %12s %11s %7s %7s\n", "op", "device", "nodes",
                        "ms/step", "us/node", "%", "cdf %");
  const std::vector<OpTypeTime> rows = profile.ByTime();
  double cumulative = 0;
  size_t shown = 0;
  for (const OpTypeTime& row : rows) {
    if (max_rows > 0 && shown == static_cast<size_t>(max_rows)) break;
    cumulative += row.seconds;
    const double share = total > 0 ? 100 * row.seconds / total : 0;
    const double cdf = total > 0 ? 100 * cumulative / total : 0;
    absl::StrAppendFormat(&out, "%-28s %-7s %9.1f %12.3f %11.1f %7.1f %7.1f\n", row.op,
                          row.device, static_cast<double>(row.executions) / steps,
                          1e3 * row.seconds / steps,
                          row.executions > 0 ? 1e6 * row.seconds / row.executions : 0, share,
                          cdf);
    ++shown;
  }
  if (shown < rows.size()) {
    double rest = 0;
    int64_t nodes = 0;
    for (size_t i = shown; i < rows.size(); ++i) {
      rest += rows[i].seconds;
      nodes += rows[i].executions;
    }
    absl::StrAppendFormat(&out, "%-36s %9.1f %12.3f %11s %7.1f\n",
                          absl::StrCat("(", rows.size() - shown, " more op types)"),
                          static_cast<double>(nodes) / steps, 1e3 * rest / steps, "",
                          total > 0 ? 100 * rest / total : 0);
  }
  return out;
}

}  // namespace minitf::harness
