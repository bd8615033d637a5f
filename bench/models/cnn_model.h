// CnnModel: a small ResNet-style image classifier (NHWC) with its training
// step, as a GraphDef, and synthetic images to feed it.
//
//   x [B,S,S,1] -> conv3x3(C) + b1 -> relu = a1
//   a1 -> conv3x3(C) + b2 -> relu -> conv3x3(C) + b3, + a1 -> relu = a3  (residual block)
//   a3 -> maxpool 2x2/2 -> flatten -> dense(classes) = logits
//
// Softmax cross-entropy, plain gradient descent on the gradients
// AddSymbolicGradients derives (Conv2DBackpropInput/Filter, MaxPoolGrad,
// ReluGrad, MatMul, BiasAddGrad).
//
//   CnnConfig config;  // 12x12 images, 8 channels, 3 classes
//   MINITF_ASSIGN_OR_RETURN(TrainingModel model, BuildCnnModel(config));
//   MINITF_ASSIGN_OR_RETURN(Batch batch, MakeBarsBatch(config, /*batch_size=*/64, /*seed=*/1));
#ifndef MINITF_BENCH_MODELS_CNN_MODEL_H_
#define MINITF_BENCH_MODELS_CNN_MODEL_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "bench/models/model_util.h"

namespace minitf {

struct CnnConfig {
  int image_size = 12;  // S: images are S x S x 1; even, >= 2
  int channels = 8;     // C: filters of every convolution
  int classes = 3;      // at most 3 for MakeBarsBatch's patterns
  float learning_rate = 0.05f;
  // Where the model's nodes ask to run ("" lets the placer choose).
  std::string device;
};

// InvalidArgument naming the field for an odd image_size or one below 2,
// channels below 1, classes below 2, or a dense layer wider than an int
// ((image_size/2)^2 * channels > 2^31-1).
absl::StatusOr<TrainingModel> BuildCnnModel(const CnnConfig& config);

// Images of one bright bar on a noisy background: class 0 a horizontal bar,
// 1 a vertical bar, 2 a diagonal, each at a random position. Deterministic
// for a seed. The config's errors, InvalidArgument for batch_size < 1, and
// ResourceExhausted naming the feed and its shape when host memory cannot
// hold the batch.
absl::StatusOr<Batch> MakeBarsBatch(const CnnConfig& config, int batch_size, uint32_t seed);

}  // namespace minitf

#endif  // MINITF_BENCH_MODELS_CNN_MODEL_H_
