# Writes the bytes of INPUT as a C array named SYMBOL (with SYMBOL_len) into
# OUTPUT. Run with cmake -P; used to embed the compiled descriptor set.
file(READ "${INPUT}" hex HEX)
string(LENGTH "${hex}" hex_len)
math(EXPR byte_len "${hex_len} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n"
       body "${body}")
file(WRITE "${OUTPUT}"
     "/* Generated from ${INPUT_NAME} by cmake/embed_bytes.cmake. */\n"
     "#include <stddef.h>\n#include <stdint.h>\n"
     "extern const uint8_t ${SYMBOL}[];\nextern const size_t ${SYMBOL}_len;\n"
     "const uint8_t ${SYMBOL}[] = {\n${body}0};\n"
     "const size_t ${SYMBOL}_len = ${byte_len};\n")
