# The code in layers: one folder and one static library (gpulint_<name>) per
# layer, lowest first. A layer builds on the layers it names and on what those
# build on; it includes nothing from a layer above it or beside it. The
# `layers` test (tests/layers_test.py) holds every #include to this table, read
# from ${CMAKE_BINARY_DIR}/layers.txt, which gpulint_layer writes. ARCHITECTURE.md
# says what each layer is for.
#
#   gpulint_layer(<name> <folder> [BUILDS_ON <layer>...] [EXTERNAL])
#
# EXTERNAL: no library is made here; the layer is only listed for the check
# (the webhook's layers, when the webhook is not built).
set(GPULINT_LAYERS_FILE ${CMAKE_BINARY_DIR}/layers.txt)
file(WRITE ${GPULINT_LAYERS_FILE} "# name folder builds-on... (cmake/layers.cmake)\n")

function(gpulint_layer name folder)
  cmake_parse_arguments(PARSE_ARGV 2 arg "EXTERNAL" "" "BUILDS_ON")
  string(REPLACE ";" " " below "${arg_BUILDS_ON}")
  file(APPEND ${GPULINT_LAYERS_FILE} "${name} ${folder} ${below}\n")
  if(arg_EXTERNAL)
    return()
  endif()
  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/${folder}/*.cc)
  list(FILTER sources EXCLUDE REGEX "_test\\.cc$")
  list(FILTER sources EXCLUDE REGEX "/main\\.cc$")
  add_library(gpulint_${name} STATIC ${sources})
  target_include_directories(gpulint_${name} PUBLIC ${CMAKE_SOURCE_DIR})
  foreach(layer ${arg_BUILDS_ON})
    target_link_libraries(gpulint_${name} PUBLIC gpulint_${layer})
  endforeach()
endfunction()
