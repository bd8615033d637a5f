// minitf._minitf.Graph: a graph under construction (ops/cc/scope.h's Scope)
// for Python's graph API (minitf/framework.py): nodes of any registered op,
// gradients, variables and the optimizers' training ops.
#ifndef MINITF_PYTHON_SRC_GRAPH_BINDING_H_
#define MINITF_PYTHON_SRC_GRAPH_BINDING_H_

#include "pybind11/pybind11.h"

namespace minitf::python {

void DefineGraph(pybind11::module_& module);

}  // namespace minitf::python

#endif  // MINITF_PYTHON_SRC_GRAPH_BINDING_H_
