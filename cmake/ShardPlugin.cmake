# shard_add_plugin: the one definition, used by shard's own build (included
# from the top-level CMakeLists.txt) and by out-of-tree plugins (installed
# beside shardConfig.cmake, which includes it).
#
# shard_add_plugin(<name> [KIND <integrator|contact_law|lcp_solver|tsl|model>] SOURCES <files> [LIBS <libs>]
#                  [OUTPUT_DIR <dir>] [INSTALL_DIR <dir> | NO_INSTALL])
#   a MODULE named <name>.so (no `lib` prefix), C11, hidden visibility: the only
#   exported symbol is shard_plugin_entry. Compiled against the target
#   shard::headers (the public headers) and linked with libm and LIBS.
#   Linked with OpenMP::OpenMP_C when that target exists (find_package(OpenMP)
#   before), so that the loops of shard/parallel.h run in threads.
#   OUTPUT_DIR: where the build puts it (default: SHARD_PLUGIN_OUTPUT_DIR when
#   set, as in shard's own build, else CMake's default). Installed to
#   INSTALL_DIR (default: ${CMAKE_INSTALL_LIBDIR}/shard/plugins of the
#   installing project's prefix) unless NO_INSTALL. KIND documents the
#   plugin kind (checked when given; the descriptor is what counts).
#   The target is ${SHARD_PLUGIN_TARGET_PREFIX}<name> (shard's own build sets
#   the prefix `shard_plugin_`; out of tree it is empty) and is appended to
#   the global property SHARD_PLUGIN_TARGETS.
function(shard_add_plugin name)
  cmake_parse_arguments(P "NO_INSTALL" "KIND;OUTPUT_DIR;INSTALL_DIR" "SOURCES;LIBS" ${ARGN})
  if(NOT P_SOURCES)
    message(FATAL_ERROR "shard_add_plugin(${name}): SOURCES is required")
  endif()
  if(NOT name MATCHES "^[a-z][a-z0-9_]*$")
    message(FATAL_ERROR "shard_add_plugin(${name}): plugin names match [a-z][a-z0-9_]*")
  endif()
  if(P_KIND AND NOT P_KIND MATCHES "^(integrator|contact_law|lcp_solver|tsl|model)$")
    message(FATAL_ERROR "shard_add_plugin(${name}): KIND ${P_KIND} is not one of integrator, contact_law, lcp_solver, tsl, model")
  endif()
  if(P_NO_INSTALL AND P_INSTALL_DIR)
    message(FATAL_ERROR "shard_add_plugin(${name}): INSTALL_DIR and NO_INSTALL exclude each other")
  endif()
  if(NOT P_OUTPUT_DIR AND SHARD_PLUGIN_OUTPUT_DIR)
    set(P_OUTPUT_DIR "${SHARD_PLUGIN_OUTPUT_DIR}")
  endif()
  include(GNUInstallDirs)
  set(target "${SHARD_PLUGIN_TARGET_PREFIX}${name}")
  add_library(${target} MODULE ${P_SOURCES})
  set_target_properties(${target} PROPERTIES PREFIX "" OUTPUT_NAME "${name}" C_STANDARD 11
    C_VISIBILITY_PRESET hidden CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
  if(P_OUTPUT_DIR)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY "${P_OUTPUT_DIR}")
  endif()
  target_link_libraries(${target} PRIVATE shard::headers m ${P_LIBS})
  if(TARGET OpenMP::OpenMP_C) # the loops of shard/parallel.h in threads (else serial)
    target_link_libraries(${target} PRIVATE OpenMP::OpenMP_C)
  endif()
  if(NOT P_NO_INSTALL)
    if(NOT P_INSTALL_DIR)
      set(P_INSTALL_DIR "${CMAKE_INSTALL_LIBDIR}/shard/plugins")
    endif()
    install(TARGETS ${target} LIBRARY DESTINATION "${P_INSTALL_DIR}")
  endif()
  set_property(GLOBAL APPEND PROPERTY SHARD_PLUGIN_TARGETS ${target})
endfunction()
