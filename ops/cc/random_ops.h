// Graph-builder functions for the random ops: RandomUniform,
// RandomStandardNormal, TruncatedNormal and RandomUniformInt.
//
//   auto noise = ops::RandomStandardNormal(root, {2, 3}, DT_FLOAT, {.seed = 7});
//   auto u = ops::RandomUniform(root, ops::Shape(root, x), DT_DOUBLE);
//
// A nonzero seed or seed2 makes a fresh graph draw the same values, and
// TensorFlow's values for the same attrs (both draw from the same Philox
// streams; each Run of an op continues its stream); both zero (the default)
// draws differently every time.
#ifndef MINITF_OPS_CC_RANDOM_OPS_H_
#define MINITF_OPS_CC_RANDOM_OPS_H_

#include <cstdint>

#include "ops/cc/scope.h"

namespace minitf::ops {

struct RandomAttrs {
  int64_t seed = 0;
  int64_t seed2 = 0;
};

// Uniform values in [0, 1) of `dtype` (float or double) and the shape the
// int32/int64 vector `shape` holds.
Output RandomUniform(const Scope& scope, Input shape, DataType dtype,
                     const RandomAttrs& attrs = {});
// Normal values, mean 0 and standard deviation 1.
Output RandomStandardNormal(const Scope& scope, Input shape, DataType dtype,
                            const RandomAttrs& attrs = {});
// Normal values, mean 0 and standard deviation 1, all within (-2, 2).
Output TruncatedNormal(const Scope& scope, Input shape, DataType dtype,
                       const RandomAttrs& attrs = {});
// Uniform integers in [minval, maxval) of their type (int32 or int64).
Output RandomUniformInt(const Scope& scope, Input shape, Input minval, Input maxval,
                        const RandomAttrs& attrs = {});

}  // namespace minitf::ops

#endif  // MINITF_OPS_CC_RANDOM_OPS_H_
