# Writes every PerfettoSQL stdlib module under STDLIB_DIR (a/b.sql is module
# a.b) into OUTPUT as a C table of {name, text}, each text a NUL-terminated
# byte array. Run with cmake -P.
file(GLOB_RECURSE files RELATIVE "${STDLIB_DIR}" "${STDLIB_DIR}/*.sql")
list(SORT files)
set(arrays "")
set(entries "")
set(index 0)
foreach(file ${files})
  string(REGEX REPLACE "\\.sql$" "" name "${file}")
  string(REPLACE "/" "." name "${name}")
  file(READ "${STDLIB_DIR}/${file}" hex HEX)
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
  string(REGEX REPLACE "((0x..,){16})" "\\1\n" body "${body}")
  string(APPEND arrays "static const char module_${index}[] = {\n${body}0};\n")
  string(APPEND entries "  {\"${name}\", module_${index}},\n")
  math(EXPR index "${index} + 1")
endforeach()
file(WRITE "${OUTPUT}.tmp"
     "/* Generated from src/sql/stdlib by cmake/embed_stdlib.cmake. */\n"
     "#include \"sql/modules.h\"\n\n${arrays}\n"
     "const sql_stdlib_module sql_stdlib_modules[] = {\n${entries}  {0, 0}};\n"
     "const size_t sql_stdlib_module_count = ${index};\n")
# Rewrite only on change, so that an unchanged stdlib rebuilds nothing.
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
