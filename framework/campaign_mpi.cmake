# Optional MPI campaign runner (docs/campaigns.md#slices-merging-mpi): with an MPI C library present,
# `mpirun -n P shard campaign FILE` gives rank r the slice r+1 of P and rank 0
# merges the table. Without it the command says MPI is unavailable.
option(SHARD_MPI "Build the MPI campaign runner when MPI is found" ON)
if(SHARD_MPI)
  find_package(MPI COMPONENTS C QUIET)
endif()
if(SHARD_MPI AND MPI_C_FOUND)
  target_link_libraries(shard_cli PRIVATE MPI::MPI_C)
  target_compile_definitions(shard_cli PRIVATE SHARD_HAVE_MPI=1)
  set(SHARD_HAVE_MPI ON CACHE INTERNAL "shard built with MPI")
  message(STATUS "shard: MPI campaign runner enabled (${MPI_C_LIBRARIES})")
else()
  set(SHARD_HAVE_MPI OFF CACHE INTERNAL "shard built with MPI")
  message(STATUS "shard: MPI not found, `mpirun shard campaign` is unavailable")
endif()
