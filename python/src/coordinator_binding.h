// minitf._minitf.Coordinator: AntMan's local coordinator
// (session/antman/coordinator.h) with its built-in policies or a Python
// callable as the policy.
#ifndef MINITF_PYTHON_SRC_COORDINATOR_BINDING_H_
#define MINITF_PYTHON_SRC_COORDINATOR_BINDING_H_

#include "pybind11/pybind11.h"

namespace minitf::python {

void DefineCoordinator(pybind11::module_& module);

}  // namespace minitf::python

#endif  // MINITF_PYTHON_SRC_COORDINATOR_BINDING_H_
