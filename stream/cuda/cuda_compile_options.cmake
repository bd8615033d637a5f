# minitf_restrict_inherited_options_to_cxx(): the compile options a CUDA
# directory inherits from the top level (warnings, -Werror, sanitizers) are
# C++ compiler flags that nvcc rejects. Called in a directory holding .cu
# files, it keeps them for that directory's C++ sources only; .cu files get
# nvcc's defaults plus the host compiler's warnings.
#
#   include(${PROJECT_SOURCE_DIR}/stream/cuda/cuda_compile_options.cmake)
#   minitf_restrict_inherited_options_to_cxx()
function(minitf_restrict_inherited_options_to_cxx)
  get_directory_property(inherited COMPILE_OPTIONS)
  set(restricted "")
  foreach(option IN LISTS inherited)
    list(APPEND restricted "$<$<COMPILE_LANGUAGE:CXX>:${option}>")
  endforeach()
  list(APPEND restricted "$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall>")
  set_directory_properties(PROPERTIES COMPILE_OPTIONS "${restricted}")
endfunction()
