#include "python/src/status_error.h"

namespace minitf::python {
namespace py = pybind11;

void RegisterStatusError(py::module_& module) {
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const StatusError& e) {
      // minitf.errors builds the exception object (its class by code, the
      // node parsed from the message).
      py::object make = py::module_::import("minitf.errors").attr("_from_status");
      py::object error = make(static_cast<int>(e.code()), e.what());
      PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(error.ptr())), error.ptr());
    }
  });
}

}  // namespace minitf::python
