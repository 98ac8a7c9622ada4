package luavm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	lua "github.com/yuin/gopher-lua"
	luajson "layeh.com/gopher-json"
)

// Timeout is the time Argo CD gives one health script.
const Timeout = time.Second

// validStatus lists what Argo CD accepts as a health status; anything
// else becomes Unknown with InvalidStatusMessage.
var validStatus = map[string]bool{
	"Healthy": true, "Progressing": true, "Degraded": true,
	"Suspended": true, "Missing": true, "Unknown": true,
}

// InvalidStatusMessage is Argo CD's message for a status it does not know.
const InvalidStatusMessage = "Lua returned an invalid health status"

// Result is what Argo CD makes of a script's return value.
type Result struct {
	Status  string `json:"status"`
	Message string `json:"message"`
}

// Run runs script with the object given as JSON. An error is what Argo CD
// would report instead of a health status: a Lua error, a timeout, or a
// return value that is not a table or does not decode.
func Run(script string, useOpenLibs bool, objJSON []byte) (Result, error) {
	obj, err := decodeObject(objJSON)
	if err != nil {
		return Result{}, err
	}
	L := lua.NewState(lua.Options{SkipOpenLibs: !useOpenLibs})
	defer L.Close()
	for _, lib := range []struct {
		name string
		open lua.LGFunction
	}{
		{lua.LoadLibName, lua.OpenPackage},
		{lua.BaseLibName, lua.OpenBase},
		{lua.TabLibName, lua.OpenTable},
		{lua.OsLibName, openSafeOs},
	} {
		if err := L.CallByParam(lua.P{Fn: L.NewFunction(lib.open), NRet: 0, Protect: true}, lua.LString(lib.name)); err != nil {
			return Result{}, fmt.Errorf("opening Lua library %s: %w", lib.name, err)
		}
	}
	L.PreloadModule(lua.OsLibName, safeOsLoader)
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	L.SetContext(ctx)
	L.SetGlobal("obj", toLua(L, obj))
	if err := L.DoString(script); err != nil {
		return Result{}, err
	}
	ret := L.Get(-1)
	if ret.Type() != lua.LTTable {
		return Result{}, fmt.Errorf("expect table output from Lua script, not %s", ret.Type())
	}
	b, err := luajson.Encode(ret)
	if err != nil {
		return Result{}, err
	}
	var res Result
	if err := json.Unmarshal(b, &res); err != nil {
		return Result{}, err
	}
	if !validStatus[res.Status] {
		return Result{Status: "Unknown", Message: InvalidStatusMessage}, nil
	}
	return res, nil
}

// decodeObject decodes JSON the way Kubernetes builds an unstructured
// object: integers become int64, other numbers float64.
func decodeObject(b []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	v, err := convertNumbers(v)
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("the object is not a JSON object")
	}
	return m, nil
}

func convertNumbers(v any) (any, error) {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i, nil
		}
		return x.Float64()
	case []any:
		for i, e := range x {
			c, err := convertNumbers(e)
			if err != nil {
				return nil, err
			}
			x[i] = c
		}
	case map[string]any:
		for k, e := range x {
			c, err := convertNumbers(e)
			if err != nil {
				return nil, err
			}
			x[k] = c
		}
	}
	return v, nil
}

// toLua converts a decoded object to Lua values as Argo CD does: lists
// are appended element by element (gopher-lua drops nil there) and object
// keys are set one by one (setting nil stores nothing).
func toLua(L *lua.LState, v any) lua.LValue {
	switch x := v.(type) {
	case bool:
		return lua.LBool(x)
	case float64:
		return lua.LNumber(x)
	case int64:
		return lua.LNumber(x)
	case string:
		return lua.LString(x)
	case []any:
		t := L.CreateTable(len(x), 0)
		for _, e := range x {
			t.Append(toLua(L, e))
		}
		return t
	case map[string]any:
		t := L.CreateTable(0, len(x))
		for k, e := range x {
			t.RawSetH(lua.LString(k), toLua(L, e))
		}
		return t
	}
	return lua.LNil
}

// openSafeOs and safeOsLoader give scripts an os table with only time and
// date, as Argo CD does; nothing platc emits calls them.
func openSafeOs(L *lua.LState) int {
	t := L.NewTable()
	L.SetFuncs(t, safeOs)
	L.SetGlobal(lua.OsLibName, t)
	L.Push(t)
	return 1
}

func safeOsLoader(L *lua.LState) int {
	t := L.NewTable()
	L.SetFuncs(t, safeOs)
	L.Push(t)
	return 1
}

var safeOs = map[string]lua.LGFunction{
	"time": func(L *lua.LState) int {
		L.Push(lua.LNumber(time.Now().Unix()))
		return 1
	},
	"date": func(L *lua.LState) int {
		L.Push(lua.LString(time.Now().UTC().Format(time.RFC3339)))
		return 1
	},
}
