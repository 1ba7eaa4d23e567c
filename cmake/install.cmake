# Installing toposcope like a real tool: `cmake --install BUILD [--prefix P]` puts in place
#   bin/toposcope
#   lib/libtoposcope_<module>.a and include/toposcope/<module>/... (every module's headers)
#   lib/cmake/toposcope/  the CMake package: find_package(toposcope) gives toposcope::toposcope (everything)
#                         and toposcope::<module> (base, formats, model, ... as in the layer order)
#   lib/pkgconfig/toposcope.pc
#   share/man/man1/toposcope.1, bash and zsh completions
# and `cpack -G DEB` (in BUILD) builds a .deb whose dependencies dpkg-shlibdeps reads off the binary.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

get_property(toposcope_modules GLOBAL PROPERTY TOPOSCOPE_MODULES)
# One target for everything (what most users want).
add_library(toposcope_toposcope INTERFACE)
target_link_libraries(toposcope_toposcope INTERFACE ${toposcope_modules})
set_target_properties(toposcope_toposcope PROPERTIES EXPORT_NAME toposcope)
add_library(toposcope::toposcope ALIAS toposcope_toposcope)

install(TARGETS toposcope RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
install(TARGETS ${toposcope_modules} toposcope_toposcope EXPORT toposcopeTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/src/toposcope DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev
        FILES_MATCHING PATTERN "*.h")
install(EXPORT toposcopeTargets NAMESPACE toposcope:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/toposcope
        COMPONENT dev)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/toposcopeConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/toposcopeConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/toposcope)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/toposcopeConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/toposcopeConfig.cmake ${PROJECT_BINARY_DIR}/toposcopeConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/toposcope COMPONENT dev)

# toposcope.pc: the static libraries from the top of the layer order down, then what they need.
set(TOPOSCOPE_PC_LIBS "")
list(REVERSE toposcope_modules)
foreach(m ${toposcope_modules})
  get_target_property(type ${m} TYPE)
  if(type STREQUAL "STATIC_LIBRARY")
    string(APPEND TOPOSCOPE_PC_LIBS " -l${m}")
  endif()
endforeach()
configure_file(${PROJECT_SOURCE_DIR}/cmake/toposcope.pc.in ${PROJECT_BINARY_DIR}/toposcope.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/toposcope.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT dev)

install(FILES ${PROJECT_SOURCE_DIR}/packaging/toposcope.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT runtime)
install(FILES ${PROJECT_SOURCE_DIR}/packaging/completions/toposcope.bash
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME toposcope COMPONENT runtime)
install(FILES ${PROJECT_SOURCE_DIR}/packaging/completions/_toposcope
        DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions COMPONENT runtime)

# The .deb (one package: the tool and its development files).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME toposcope)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "toposcope maintainers <toposcope@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "reconstructs a GPU cluster's communication topology from its telemetry")
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
include(CPack)
