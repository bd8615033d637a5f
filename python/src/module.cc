// minitf._minitf: the C++ half of the Python package (python/minitf/).
#include "pybind11/pybind11.h"
#include "python/src/coordinator_binding.h"
#include "python/src/graph_binding.h"
#include "python/src/session_binding.h"
#include "python/src/status_error.h"

PYBIND11_MODULE(_minitf, module) {
  module.doc() = "minitf's runtime, for the Python package minitf.";
  minitf::python::RegisterStatusError(module);
  minitf::python::DefineSession(module);
  minitf::python::DefineGraph(module);
  minitf::python::DefineCoordinator(module);
}
