# cmake -DINPUT=file -DOUTPUT=file.cpp -DSYMBOL=name -P embed_binary.cmake
# Writes a C++ source defining `extern "C" const unsigned char SYMBOL[]` and
# `SYMBOL_size` with the bytes of INPUT (the tracer's fatbins).
file(READ "${INPUT}" hex HEX)
string(LENGTH "${hex}" n)
math(EXPR bytes "${n} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" body "${body}")
file(WRITE "${OUTPUT}" "// Generated from ${INPUT} by cmake/embed_binary.cmake.\n"
  "extern \"C\" const unsigned char ${SYMBOL}[] = {\n${body}\n};\n"
  "extern \"C\" const unsigned long long ${SYMBOL}_size = ${bytes};\n")
