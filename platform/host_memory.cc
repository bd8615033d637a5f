#include "platform/host_memory.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/strip.h"

namespace minitf {
namespace {

// The number in the file at `path` (its first line); 0 when it holds none.
int64_t ReadLimitFile(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line)) return 0;
  int64_t value = 0;
  if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(line), &value) || value <= 0) return 0;
  // cgroup v1 says "no limit" with a huge page-rounded value.
  if (value >= (int64_t{1} << 62)) return 0;
  return value;
}

// This process's cgroup directories under /sys/fs/cgroup: the v2 one and the
// v1 memory controller's, from /proc/self/cgroup.
std::vector<std::string> OwnCgroupDirs() {
  std::vector<std::string> dirs;
  std::ifstream in("/proc/self/cgroup");
  std::string line;
  while (std::getline(in, line)) {
    // "hierarchy-ID:controller-list:path"
    const size_t first = line.find(':');
    const size_t second = first == std::string::npos ? first : line.find(':', first + 1);
    if (second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    const std::string path = line.substr(second + 1);
    if (controllers.empty()) dirs.push_back("/sys/fs/cgroup" + path);
    if (controllers.find("memory") != std::string::npos) {
      dirs.push_back("/sys/fs/cgroup/memory" + path);
    }
  }
  // The namespace root, where a container sees its own cgroup.
  dirs.push_back("/sys/fs/cgroup");
  dirs.push_back("/sys/fs/cgroup/memory");
  return dirs;
}

}  // namespace

int64_t PhysicalMemoryBytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_size <= 0) return 0;
  return static_cast<int64_t>(pages) * page_size;
}

int64_t CgroupMemoryLimitBytes(const std::string& cgroup_dir) {
  const int64_t v2 = ReadLimitFile(cgroup_dir + "/memory.max");
  if (v2 > 0) return v2;
  return ReadLimitFile(cgroup_dir + "/memory.limit_in_bytes");
}

int64_t ResourceLimitBytes() {
  int64_t least = 0;
  for (const int resource : {RLIMIT_DATA, RLIMIT_AS}) {
    rlimit limit{};
    if (getrlimit(resource, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) continue;
    const int64_t bytes = static_cast<int64_t>(
        std::min<rlim_t>(limit.rlim_cur, static_cast<rlim_t>(INT64_MAX)));
    least = least > 0 ? std::min(least, bytes) : bytes;
  }
  return least;
}

int64_t HostMemoryLimitBytes() {
  int64_t limit = PhysicalMemoryBytes();
  const auto lower = [&limit](int64_t bound) {
    if (bound > 0) limit = limit > 0 ? std::min(limit, bound) : bound;
  };
  for (const std::string& dir : OwnCgroupDirs()) lower(CgroupMemoryLimitBytes(dir));
  lower(ResourceLimitBytes());
  return limit;
}

int64_t HostMemoryBudget::LimitFor(int64_t limit_bytes) {
  if (limit_bytes <= 0) return 0;
  const int64_t margin = std::max<int64_t>(limit_bytes / 8, int64_t{256} << 20);
  // A process allowed less than the margin still gets an eighth.
  return std::max<int64_t>(limit_bytes - margin, limit_bytes / 8);
}

HostMemoryBudget& HostMemoryBudget::Process() {
  static HostMemoryBudget* budget = new HostMemoryBudget(LimitFor(HostMemoryLimitBytes()));
  return *budget;
}

bool HostMemoryBudget::TryReserve(int64_t bytes) {
  int64_t now = reserved_.load(std::memory_order_relaxed);
  do {
    if (limit_ > 0 && (bytes > limit_ || now > limit_ - bytes)) return false;
  } while (!reserved_.compare_exchange_weak(now, now + bytes, std::memory_order_relaxed));
  return true;
}

void HostMemoryBudget::Release(int64_t bytes) {
  reserved_.fetch_sub(bytes, std::memory_order_relaxed);
}

}  // namespace minitf
