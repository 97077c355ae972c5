package jsonata

var formatFunctions = []builtinDef{}
