#include "session/gradient_checker.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "ops/cc/array_ops.h"
#include "ops/cc/gradients.h"
#include "platform/status_macros.h"
#include "session/session.h"

namespace minitf {
namespace {

using Feeds = std::vector<std::pair<std::string, Tensor>>;

bool IsFloat(DataType t) { return t == DT_FLOAT || t == DT_DOUBLE; }

double Get(const Tensor& t, int64_t i) {
  return t.dtype() == DT_FLOAT ? static_cast<double>(t.data<float>()[i]) : t.data<double>()[i];
}

void Set(Tensor* t, int64_t i, double v) {
  if (t->dtype() == DT_FLOAT) {
    t->data<float>()[i] = static_cast<float>(v);
  } else {
    t->data<double>()[i] = v;
  }
}

// The graph with its gradients, run on the CPU.
class Checker {
 public:
  Checker(const std::vector<Output>& xs, const std::vector<Output>& ys,
          const std::vector<TensorShape>& y_shapes, const GradientCheckOptions& options)
      : xs_(xs), ys_(ys), y_shapes_(y_shapes), options_(options) {}

  absl::Status Build(const Scope& scope);
  absl::Status MaxError(std::vector<Tensor> x_values, double* max_error);

 private:
  absl::Status RunYs(const std::vector<Tensor>& x_values, std::vector<Tensor>* ys);
  Feeds XFeeds(const std::vector<Tensor>& x_values) const;

  const std::vector<Output>& xs_;
  const std::vector<Output>& ys_;
  const std::vector<TensorShape>& y_shapes_;
  const GradientCheckOptions options_;
  std::vector<Output> dys_;
  std::vector<Output> dxs_;
  std::unique_ptr<Session> session_;
};

absl::Status Checker::Build(const Scope& scope) {
  MINITF_RETURN_IF_ERROR(scope.status());
  if (ys_.size() != y_shapes_.size()) {
    return absl::InvalidArgumentError(absl::StrCat("ComputeGradientError: ", ys_.size(),
                                                   " ys but ", y_shapes_.size(), " y_shapes"));
  }
  for (size_t i = 0; i < xs_.size(); ++i) {
    const NodeDef* def = xs_[i].valid() ? scope.FindNode(xs_[i].node_name()) : nullptr;
    if (def == nullptr || def->op != "Placeholder" || !IsFloat(xs_[i].type())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "ComputeGradientError: xs[", i, "] '", xs_[i].name(),
          "' must be a float or double Placeholder of the scope's graph"));
    }
  }
  const Scope check = scope.NewSubScope("gradient_check");
  for (size_t i = 0; i < ys_.size(); ++i) {
    if (!IsFloat(ys_[i].type())) {
      return absl::InvalidArgumentError(absl::StrCat("ComputeGradientError: ys[", i, "] '",
                                                     ys_[i].name(), "' is not float or double"));
    }
    dys_.push_back(ops::Placeholder(check, ys_[i].type()));
  }
  MINITF_RETURN_IF_ERROR(AddSymbolicGradients(scope, ys_, xs_, dys_, &dxs_));
  GraphDef graph;
  MINITF_RETURN_IF_ERROR(scope.ToGraphDef(&graph));
  SessionOptions options;
  options.config.device_count = {{"GPU", 0}};
  options.config.intra_op_parallelism_threads = 1;
  options.config.inter_op_parallelism_threads = 1;
  MINITF_ASSIGN_OR_RETURN(session_, NewSession(options));
  return session_->Create(graph);
}

Feeds Checker::XFeeds(const std::vector<Tensor>& x_values) const {
  Feeds feeds;
  // Copies: an output may share a fed tensor's buffer (Identity), which the
  // differences then change under it.
  for (size_t i = 0; i < xs_.size(); ++i) {
    feeds.emplace_back(xs_[i].name(), x_values[i].DeepCopy());
  }
  return feeds;
}

absl::Status Checker::RunYs(const std::vector<Tensor>& x_values, std::vector<Tensor>* ys) {
  std::vector<std::string> fetches;
  for (const Output& y : ys_) fetches.push_back(y.name());
  MINITF_RETURN_IF_ERROR(session_->Run(XFeeds(x_values), fetches, {}, ys));
  for (size_t i = 0; i < ys_.size(); ++i) {
    if ((*ys)[i].shape() != y_shapes_[i]) {
      return absl::InvalidArgumentError(
          absl::StrCat("ComputeGradientError: ys[", i, "] '", ys_[i].name(), "' has shape ",
                       (*ys)[i].shape().DebugString(), ", y_shapes[", i, "] says ",
                       y_shapes_[i].DebugString()));
    }
  }
  return absl::OkStatus();
}

absl::Status Checker::MaxError(std::vector<Tensor> x_values, double* max_error) {
  // Numeric Jacobian: numeric[x][y][c * y_size + r] = d y[r] / d x[c].
  std::vector<std::vector<std::vector<double>>> numeric(xs_.size());
  std::vector<Tensor> plus, minus;
  for (size_t i = 0; i < xs_.size(); ++i) {
    numeric[i].resize(ys_.size());
    Tensor& x = x_values[i];
    for (int64_t c = 0; c < x.NumElements(); ++c) {
      const double v = Get(x, c);
      Set(&x, c, v + options_.delta);
      MINITF_RETURN_IF_ERROR(RunYs(x_values, &plus));
      Set(&x, c, v - options_.delta);
      MINITF_RETURN_IF_ERROR(RunYs(x_values, &minus));
      Set(&x, c, v);
      for (size_t j = 0; j < ys_.size(); ++j) {
        for (int64_t r = 0; r < plus[j].NumElements(); ++r) {
          numeric[i][j].push_back((Get(plus[j], r) - Get(minus[j], r)) / (2 * options_.delta));
        }
      }
    }
  }
  // Symbolic Jacobian, one row per element of each y: dy = e_r.
  std::vector<Tensor> dy_values;
  for (size_t j = 0; j < ys_.size(); ++j) {
    Tensor dy(ys_[j].type(), y_shapes_[j]);
    for (int64_t r = 0; r < dy.NumElements(); ++r) Set(&dy, r, 0);
    dy_values.push_back(dy);
  }
  std::vector<std::string> fetches;
  std::vector<size_t> fetched;  // The xs with a gradient (the others' is 0).
  for (size_t i = 0; i < xs_.size(); ++i) {
    if (!dxs_[i].valid()) continue;
    fetches.push_back(dxs_[i].name());
    fetched.push_back(i);
  }
  double error = 0;
  std::vector<Tensor> dxs;
  for (size_t j = 0; j < ys_.size(); ++j) {
    const int64_t y_size = y_shapes_[j].num_elements();
    for (int64_t r = 0; r < y_size; ++r) {
      std::vector<Tensor> dxs_row;
      if (!fetches.empty()) {
        Set(&dy_values[j], r, 1);
        Feeds feeds = XFeeds(x_values);
        for (size_t k = 0; k < ys_.size(); ++k) {
          feeds.emplace_back(dys_[k].name(), dy_values[k].DeepCopy());
        }
        Set(&dy_values[j], r, 0);
        MINITF_RETURN_IF_ERROR(session_->Run(feeds, fetches, {}, &dxs_row));
      }
      for (size_t i = 0; i < xs_.size(); ++i) {
        auto it = std::find(fetched.begin(), fetched.end(), i);
        const Tensor* dx = it == fetched.end() ? nullptr : &dxs_row[it - fetched.begin()];
        if (dx != nullptr && dx->shape() != x_values[i].shape()) {
          return absl::InternalError(absl::StrCat(
              "ComputeGradientError: the gradient of xs[", i, "] '", xs_[i].name(),
              "' has shape ", dx->shape().DebugString(), ", the x ",
              x_values[i].shape().DebugString()));
        }
        for (int64_t c = 0; c < x_values[i].NumElements(); ++c) {
          const double symbolic = dx == nullptr ? 0.0 : Get(*dx, c);
          const double diff = std::abs(symbolic - numeric[i][j][c * y_size + r]);
          if (std::isnan(diff)) {
            error = diff;
          } else if (!std::isnan(error)) {
            error = std::max(error, diff);
          }
        }
      }
    }
  }
  *max_error = error;
  return absl::OkStatus();
}

}  // namespace

absl::Status ComputeGradientError(const Scope& scope, const std::vector<Output>& xs,
                                  const std::vector<Tensor>& x_values,
                                  const std::vector<Output>& ys,
                                  const std::vector<TensorShape>& y_shapes, double* max_error,
                                  const GradientCheckOptions& options) {
  if (x_values.size() != xs.size()) {
    return absl::InvalidArgumentError(absl::StrCat("ComputeGradientError: ", xs.size(),
                                                   " xs but ", x_values.size(), " x values"));
  }
  for (size_t i = 0; i < xs.size(); ++i) {
    if (x_values[i].dtype() != RemoveRefType(xs[i].type()) || !x_values[i].IsInitialized()) {
      return absl::InvalidArgumentError(
          absl::StrCat("ComputeGradientError: the value of xs[", i, "] '", xs[i].name(),
                       "' has type ", DataTypeString(x_values[i].dtype()), ", the x ",
                       DataTypeString(xs[i].type())));
    }
  }
  Checker checker(xs, ys, y_shapes, options);
  MINITF_RETURN_IF_ERROR(checker.Build(scope));
  std::vector<Tensor> values;
  for (const Tensor& v : x_values) values.push_back(v.DeepCopy());
  return checker.MaxError(std::move(values), max_error);
}

absl::Status ComputeGradientError(const Scope& scope, const std::vector<Output>& xs,
                                  const std::vector<TensorShape>& x_shapes,
                                  const std::vector<Output>& ys,
                                  const std::vector<TensorShape>& y_shapes, double* max_error,
                                  const GradientCheckOptions& options) {
  if (x_shapes.size() != xs.size()) {
    return absl::InvalidArgumentError(absl::StrCat("ComputeGradientError: ", xs.size(),
                                                   " xs but ", x_shapes.size(), " x_shapes"));
  }
  std::mt19937 rng(options.seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<Tensor> values;
  for (size_t i = 0; i < xs.size(); ++i) {
    const DataType type = RemoveRefType(xs[i].type());
    if (!IsFloat(type)) {
      return absl::InvalidArgumentError(absl::StrCat("ComputeGradientError: xs[", i, "] '",
                                                     xs[i].name(), "' is not float or double"));
    }
    Tensor v(type, x_shapes[i]);
    for (int64_t c = 0; c < v.NumElements(); ++c) Set(&v, c, uniform(rng));
    values.push_back(v);
  }
  return ComputeGradientError(scope, xs, values, ys, y_shapes, max_error, options);
}

}  // namespace minitf
