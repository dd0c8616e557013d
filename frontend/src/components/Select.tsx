import * as RadixSelect from "@radix-ui/react-select";
import { styleNonce } from "@/lib/csp-nonce";

export interface SelectOption {
  value: string;
  label: string;
}

export interface SelectProps {
  /** The visible label (also the accessible name of the trigger). */
  label: string;
  placeholder: string;
  options: SelectOption[];
  value: string | undefined;
  onValueChange: (value: string) => void;
  disabled?: boolean;
  id?: string;
}

/** A labelled dropdown on Radix Select (keyboard and screen-reader friendly). */
export function Select({ label, placeholder, options, value, onValueChange, disabled, id = "select" }: SelectProps) {
  const labelId = `${id}-label`;
  return (
    <div className="form-field">
      <label id={labelId} htmlFor={id}>
        {label}
      </label>
      <RadixSelect.Root value={value} onValueChange={onValueChange} disabled={disabled}>
        <RadixSelect.Trigger id={id} className="select-trigger" aria-labelledby={labelId}>
          <RadixSelect.Value placeholder={placeholder} />
          <RadixSelect.Icon aria-hidden="true">▾</RadixSelect.Icon>
        </RadixSelect.Trigger>
        <RadixSelect.Portal>
          <RadixSelect.Content className="select-content" position="popper" sideOffset={4}>
            <RadixSelect.Viewport className="select-viewport" nonce={styleNonce()}>
              {options.map((option) => (
                <RadixSelect.Item key={option.value} value={option.value} className="select-item">
                  <RadixSelect.ItemIndicator className="select-item-indicator">✓</RadixSelect.ItemIndicator>
                  <RadixSelect.ItemText>{option.label}</RadixSelect.ItemText>
                </RadixSelect.Item>
              ))}
            </RadixSelect.Viewport>
          </RadixSelect.Content>
        </RadixSelect.Portal>
      </RadixSelect.Root>
    </div>
  );
}
