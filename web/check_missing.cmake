# check_missing.cmake: after the link of a module built with -sERROR_ON_UNDEFINED_SYMBOLS=0, fails if
# any symbol other than a SIMD kernel's per-ISA entry point (..._avx2, ..._avx512, never called in
# WebAssembly) was left undefined.   cmake -DJS=build/web/lessons.js -P web/check_missing.cmake
file(STRINGS ${JS} lines REGEX "missing function: ")
set(bad "")
foreach(line ${lines})
  string(REGEX MATCHALL "missing function: [A-Za-z0-9_$]+" names "${line}")
  foreach(name ${names})
    if(NOT name MATCHES "_avx(2|512)E")
      string(APPEND bad " ${name}")
    endif()
  endforeach()
endforeach()
if(bad)
  message(FATAL_ERROR "${JS} has undefined symbols besides the per-ISA kernels:${bad}\n"
                      "add their source to web/CMakeLists.txt")
endif()
