# cmake -DVERSION=x.y.z -DVERSION_MAJOR=x -DSIZEOF_VOID_P=8 -DOUT=dir -P tools/cmake/package.cmake
# Writes cubindConfig.cmake (from cubindConfig.cmake.in) and cubindConfigVersion.cmake with
# CMake's own write_basic_package_version_file. While the major version is 0, a minor version
# may break the ABI, so 0.x is compatible within its minor version only; from 1.0 on, within
# its major version.
include(CMakePackageConfigHelpers)
set(CMAKE_SIZEOF_VOID_P "${SIZEOF_VOID_P}")
configure_file("${CMAKE_CURRENT_LIST_DIR}/cubindConfig.cmake.in" "${OUT}/cubindConfig.cmake" @ONLY)
if(VERSION_MAJOR EQUAL 0)
    set(_compatibility SameMinorVersion)
else()
    set(_compatibility SameMajorVersion)
endif()
write_basic_package_version_file("${OUT}/cubindConfigVersion.cmake" VERSION "${VERSION}"
                                 COMPATIBILITY ${_compatibility})
