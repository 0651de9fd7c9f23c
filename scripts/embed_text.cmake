# Turns a text file into a C file defining `const char NAME[]` (NUL-terminated), so that a
# script (the report's timeline) lives in its own readable file yet ships inside the binary.
# Usage: cmake -DIN=file -DOUT=file.c -DNAME=symbol -P embed_text.cmake
file(READ "${IN}" hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" body "${body}")
file(WRITE "${OUT}" "/* generated from ${IN} by scripts/embed_text.cmake: do not edit */\nconst char ${NAME}[] = {\n${body}0x00};\n")
