// minitf._minitf.Session: a DirectSession for Python (minitf/session.py
// wraps it in TensorFlow's v1 Session API).
#ifndef MINITF_PYTHON_SRC_SESSION_BINDING_H_
#define MINITF_PYTHON_SRC_SESSION_BINDING_H_

#include "pybind11/pybind11.h"

namespace minitf::python {

void DefineSession(pybind11::module_& module);

}  // namespace minitf::python

#endif  // MINITF_PYTHON_SRC_SESSION_BINDING_H_
