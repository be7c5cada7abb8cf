# Compiles through ccache (Debian's package) where it is installed, so a clean clone, as CI's,
# reuses the objects of earlier builds on the same machine (the cache lives outside the clone).
# Paths below `base` are hashed relative to it and the build folder is not hashed, so clones in
# different folders share their hits. -DMOTE_CCACHE=OFF compiles directly.
option(MOTE_CCACHE "Compile through ccache when it is installed" ON)
function(mote_use_ccache base)
  if(NOT MOTE_CCACHE OR CMAKE_CXX_COMPILER_LAUNCHER)
    return()
  endif()
  find_program(MOTE_CCACHE_PROGRAM ccache)
  if(MOTE_CCACHE_PROGRAM)
    set(launcher ${CMAKE_COMMAND} -E env CCACHE_BASEDIR=${base} CCACHE_NOHASHDIR=true
        ${MOTE_CCACHE_PROGRAM})
    set(CMAKE_C_COMPILER_LAUNCHER ${launcher} PARENT_SCOPE)
    set(CMAKE_CXX_COMPILER_LAUNCHER ${launcher} PARENT_SCOPE)
  endif()
endfunction()
