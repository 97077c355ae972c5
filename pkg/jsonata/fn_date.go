package jsonata

var dateFunctions = []builtinDef{}
