#!/usr/bin/env python3
"""Functions in Rust sources longer than N lines (from `fn` to the closing
brace, blank and comment-only lines aside; src/function_length_tests.rs
enforces 100). Usage: scripts/function-lengths.py DIR... [--over N] [--raw]"""
import re, sys, pathlib

def strip(text):
    # blank out comments and string contents so braces in them do not count
    out=[];i=0;n=len(text)
    while i<n:
        c=text[i]
        if text.startswith('//',i):
            j=text.find('\n',i); j=n if j<0 else j
            out.append(' '*(j-i)); i=j; continue
        if text.startswith('/*',i):
            j=text.find('*/',i+2); j=n if j<0 else j+2
            out.append(''.join(ch if ch=='\n' else ' ' for ch in text[i:j])); i=j; continue
        m=re.match(r'r(#*)"',text[i:i+10]) if c=='r' and (i==0 or not (text[i-1].isalnum() or text[i-1]=='_')) else None
        if m:
            end='"'+m.group(1); j=text.find(end,i+len(m.group(0))); j=n if j<0 else j+len(end)
            out.append('"'+''.join(ch if ch=='\n' else ' ' for ch in text[i+1:j-1])+'"'); i=j; continue
        if c=='"':
            j=i+1
            while j<n and text[j]!='"':
                j+= 2 if text[j]=='\\' else 1
            out.append('"'+''.join(ch if ch=='\n' else ' ' for ch in text[i+1:j])+'"'); i=j+1; continue
        if c=="'" :
            m=re.match(r"'(\\.[^']*|[^\\'])'",text[i:i+12])
            if m:
                out.append(' '*len(m.group(0))); i+=len(m.group(0)); continue
        out.append(c); i+=1
    return ''.join(out)

def functions(path):
    raw=path.read_text()
    text=strip(raw)
    lines=text.split('\n')
    for m in re.finditer(r'\bfn\s+([A-Za-z_][A-Za-z0-9_]*)',text):
        # find the body's opening brace (skip declarations ending in ;)
        i=m.end(); depth=0
        while i<len(text):
            ch=text[i]
            if ch in '(<[': depth+=1
            elif ch in ')>]': depth-=1
            elif ch==';' and depth<=0: i=-1; break
            elif ch=='{' and depth<=0: break
            i+=1
        if i<0 or i>=len(text): continue
        d=0;j=i
        while j<len(text):
            if text[j]=='{': d+=1
            elif text[j]=='}':
                d-=1
                if d==0: break
            j+=1
        start=text.count('\n',0,m.start()); end=text.count('\n',0,j)
        code=sum(1 for l in lines[start:end+1] if l.strip())
        yield m.group(1), start+1, end-start+1, code

args=sys.argv[1:]
over=100; raw=False
if '--over' in args:
    k=args.index('--over'); over=int(args[k+1]); del args[k:k+2]
if '--raw' in args: raw=True; args.remove('--raw')
found=[]
for d in args:
    for p in sorted(pathlib.Path(d).rglob('*.rs')):
        for name,line,total,code in functions(p):
            n= total if raw else code
            if n>over: found.append((n,f'{p}:{line}',name))
for n,loc,name in sorted(found,reverse=True): print(f'{n:5} {loc} {name}')
print(f'{len(found)} functions over {over} lines', file=sys.stderr)
