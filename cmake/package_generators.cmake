# What each of cmake/package.cmake's packages holds, read by cpack once per
# generator (CPACK_PROJECT_CONFIG_FILE): which of the install's components go
# in (cpack only chooses components in a component install; grouped all in
# one, it still makes one package), and where they are put.
set(CPACK_COMPONENTS_GROUPING ALL_COMPONENTS_IN_ONE)
if(CPACK_GENERATOR STREQUAL "DEB")
  # Every component but the tarball's own files, under /usr.
  set(CPACK_DEB_COMPONENT_INSTALL ON)
  list(REMOVE_ITEM CPACK_COMPONENTS_ALL tarball)
  set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
elseif(CPACK_GENERATOR STREQUAL "TGZ")
  # The shipped files and README.md, under gpulint-VERSION-linux-ARCH/.
  set(CPACK_ARCHIVE_COMPONENT_INSTALL ON)
  set(CPACK_COMPONENTS_ALL shipped tarball)
  set(CPACK_PACKAGE_FILE_NAME ${CPACK_GPULINT_TARBALL_NAME})  # the file and its top directory
  set(CPACK_COMPONENT_INCLUDE_TOPLEVEL_DIRECTORY ON)
endif()
