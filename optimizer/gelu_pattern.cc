#include "optimizer/gelu_pattern.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "ops/kernels/fused_activation.h"
#include "optimizer/node_rules.h"

namespace minitf {
namespace {

constexpr size_t kMaxNodes = 16;

bool IsElementwise(const std::string& op) {
  static const auto* const kOps = new absl::flat_hash_set<std::string>{
      "Mul", "Add", "AddV2", "Sub", "RealDiv", "Neg", "Square", "Pow", "Tanh", "Erf", "Erfc"};
  return kOps->contains(op);
}

// The value of a one-element float or double Const feeding input i.
std::optional<double> ScalarConst(const Node& n, int i) {
  const Tensor* t = ConstInput(n, i);
  if (t == nullptr || t->NumElements() != 1) return std::nullopt;
  if (t->dtype() == DT_FLOAT) return static_cast<double>(t->flat<float>()(0));
  if (t->dtype() == DT_DOUBLE) return t->flat<double>()(0);
  return std::nullopt;
}

bool HasControlEdges(const Node& n) {
  for (const Edge* e : n.in_edges()) {
    if (e->IsControlEdge() && !e->src()->IsSource()) return true;
  }
  for (const Edge* e : n.out_edges()) {
    if (e->IsControlEdge() && !e->dst()->IsSink()) return true;
  }
  return false;
}

// The data readers of `n`, the sink aside.
std::vector<Node*> DataReaders(const Node& n) {
  std::vector<Node*> readers;
  for (const Edge* e : n.out_edges()) {
    if (!e->IsControlEdge() && !e->dst()->IsSink()) readers.push_back(e->dst());
  }
  return readers;
}

// Evaluates the collected nodes as a function of x.
class Evaluator {
 public:
  Evaluator(const Node& x, const absl::flat_hash_set<const Node*>& members)
      : x_(x), members_(members) {}

  // The value of `n` (x, a member or a scalar Const's reader's input) at
  // x = `at`; nullopt when an input is neither.
  std::optional<double> ValueOf(const Node& n, double at) {
    values_.clear();
    at_ = at;
    return Eval(n);
  }

 private:
  std::optional<double> Input(const Node& n, int i) {
    const Edge* e = DataInput(n, i);
    if (e == nullptr) return std::nullopt;
    if (e->src() == &x_) {
      if (e->src_output() != 0) return std::nullopt;
      return at_;
    }
    if (members_.contains(e->src())) return Eval(*e->src());
    return ScalarConst(n, i);
  }

  std::optional<double> Eval(const Node& n) {
    if (auto it = values_.find(&n); it != values_.end()) return it->second;
    const std::string& op = n.type_string();
    const std::optional<double> a = Input(n, 0);
    if (!a) return std::nullopt;
    std::optional<double> v;
    if (op == "Neg") v = -*a;
    if (op == "Square") v = *a * *a;
    if (op == "Tanh") v = std::tanh(*a);
    if (op == "Erf") v = std::erf(*a);
    if (op == "Erfc") v = std::erfc(*a);
    if (!v) {
      const std::optional<double> b = Input(n, 1);
      if (!b) return std::nullopt;
      if (op == "Mul") v = *a * *b;
      if (op == "Add" || op == "AddV2") v = *a + *b;
      if (op == "Sub") v = *a - *b;
      if (op == "RealDiv") v = *a / *b;
      if (op == "Pow") v = std::pow(*a, *b);
    }
    if (v) values_[&n] = *v;
    return v;
  }

  const Node& x_;
  const absl::flat_hash_set<const Node*>& members_;
  absl::flat_hash_map<const Node*, double> values_;
  double at_ = 0;
};

double GeluApproximate(double x) {
  return 0.5 * x * (1 + std::tanh(kGeluSqrtTwoOverPi * (x + kGeluCubeCoefficient * x * x * x)));
}
double GeluExact(double x) { return 0.5 * x * std::erfc(-x * kGeluSqrtOneHalf); }

// Whether `f` (evaluated through `eval`) is `gelu` at every point.
template <typename Gelu>
bool SameFunction(Evaluator* eval, const Node& output, Gelu gelu) {
  // Both signs, near zero, where the tanh and erf bend, and beyond.
  constexpr double kPoints[] = {-3.7, -1.3, -0.45, 0.04, 0.55, 1.6, 2.9};
  for (double at : kPoints) {
    const std::optional<double> v = eval->ValueOf(output, at);
    const double want = gelu(at);
    if (!v || !(std::abs(*v - want) <= 1e-5 * std::max(1.0, std::abs(want)))) return false;
  }
  return true;
}

// The GELU whose nodes are `gelu` and whose value `output` gives, when
// it is one (the nodes left for the caller to fill in).
std::optional<GeluPattern> AsGelu(const Node& x, const absl::flat_hash_set<const Node*>& gelu,
                                  Node* output) {
  GeluPattern p;
  p.output = output;
  Evaluator eval(x, gelu);
  if (SameFunction(&eval, *output, GeluApproximate)) {
    p.activation = "GeluApproximate";
  } else if (SameFunction(&eval, *output, GeluExact)) {
    p.activation = "GeluExact";
  } else {
    return std::nullopt;
  }
  absl::flat_hash_set<const Node*> seen;
  for (const Node* n : gelu) {
    for (const Edge* e : n->in_edges()) {
      if (!e->IsControlEdge() && e->src()->type_string() == "Const" &&
          seen.insert(e->src()).second) {
        p.constants.push_back(e->src());
      }
    }
  }
  return p;
}

}  // namespace

std::optional<GeluPattern> MatchGelu(const Node& x) {
  if (HasControlEdges(x)) return std::nullopt;
  // Collect the elementwise readers of x and of each other until no more
  // join: a node joins once every data input is x, a member or a scalar
  // Const.
  std::vector<Node*> members;
  absl::flat_hash_set<const Node*> is_member;
  auto joins = [&](const Node& n) {
    if (!IsElementwise(n.type_string()) || !MayChange(n) || n.num_outputs() != 1 ||
        n.assigned_device_name() != x.assigned_device_name() ||
        n.requested_device() != x.requested_device() || HasControlEdges(n)) {
      return false;
    }
    for (const Edge* e : n.in_edges()) {
      if (e->IsControlEdge()) continue;
      const bool from_x = e->src() == &x && e->src_output() == 0;
      if (!from_x && !is_member.contains(e->src()) && !ScalarConst(n, e->dst_input())) {
        return false;
      }
    }
    return true;
  };
  for (bool grew = true; grew && members.size() < kMaxNodes;) {
    grew = false;
    std::vector<const Node*> sources = {&x};
    sources.insert(sources.end(), members.begin(), members.end());
    for (const Node* s : sources) {
      for (Node* reader : DataReaders(*s)) {
        if (members.size() == kMaxNodes) break;
        if (is_member.contains(reader) || !joins(*reader)) continue;
        members.push_back(reader);
        is_member.insert(reader);
        grew = true;
      }
    }
  }
  // The output is a member whose ancestors among the members (itself
  // included) are the whole GELU: x's every reader is one of them, and
  // each of them but the output is read by them alone. (What follows the
  // GELU may have joined the members too.)
  for (Node* output : members) {
    absl::flat_hash_set<const Node*> gelu = {output};
    std::vector<const Node*> stack = {output};
    while (!stack.empty()) {
      const Node* at = stack.back();
      stack.pop_back();
      for (const Edge* e : at->in_edges()) {
        if (!e->IsControlEdge() && is_member.contains(e->src()) && gelu.insert(e->src()).second) {
          stack.push_back(e->src());
        }
      }
    }
    auto read_inside = [&](const Node& n) {
      for (const Node* r : DataReaders(n)) {
        if (!gelu.contains(r)) return false;
      }
      return true;
    };
    if (!read_inside(x)) continue;
    bool closed = true;
    for (const Node* n : gelu) closed = closed && (n == output || read_inside(*n));
    if (!closed) continue;
    std::optional<GeluPattern> p = AsGelu(x, gelu, output);
    if (!p) continue;
    for (Node* n : members) {
      if (gelu.contains(n)) p->nodes.push_back(n);
    }
    return p;
  }
  return std::nullopt;
}

}  // namespace minitf
